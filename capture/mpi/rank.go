// Package mpi tells heapscope run that it runs as one rank of an MPI
// job, from the environment the job's launcher gives each process, so
// that each rank writes its snapshots under a directory of its own
// (rank-N) and none clashes with another's: mpirun -n 4 heapscope run
// -o DIR -- python3 app.py writes DIR/rank-0 ... DIR/rank-3, the layout
// package internal/fleet reads back.
package mpi

import (
	"strconv"
)

// Job is this process's place in an MPI job.
type Job struct {
	Rank, Size int
	// LocalRank is the rank among the job's processes on this host
	// (0 when the launcher does not say).
	LocalRank int
	// Launcher names where Rank was read from: "Open MPI", "PMI"
	// (MPICH's and Intel MPI's Hydra), "PMIx", "Slurm".
	Launcher string
}

// Dir is the rank's directory name: rank-N.
func (j Job) Dir() string { return "rank-" + strconv.Itoa(j.Rank) }

// launchers are the variables each launcher sets, most specific first.
// Slurm's count only inside a job step (srun sets SLURM_STEP_ID), where
// there is more than one task: the batch script of sbatch has
// SLURM_PROCID=0 too.
var launchers = []struct{ name, rank, size, local, need string }{
	{"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", ""},
	{"PMIx", "PMIX_RANK", "", "", ""},
	{"PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", ""},
	{"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_STEP_ID"},
}

// Detect reads the job from the environment getenv gives. It returns
// false outside an MPI job (and for a Slurm step of one task).
func Detect(getenv func(string) string) (Job, bool) {
	for _, l := range launchers {
		rank, err := strconv.Atoi(getenv(l.rank))
		if err != nil || rank < 0 {
			continue
		}
		size, err := strconv.Atoi(getenv(l.size))
		if err != nil || size <= rank {
			size = 0 // unknown
		}
		if l.need != "" && (getenv(l.need) == "" || size < 2) {
			continue
		}
		local, err := strconv.Atoi(getenv(l.local))
		if err != nil || local < 0 {
			local = 0
		}
		return Job{Rank: rank, Size: size, LocalRank: local, Launcher: l.name}, true
	}
	return Job{}, false
}
