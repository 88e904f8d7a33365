package mpi

import "testing"

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Job
		ok   bool
	}{
		{map[string]string{}, Job{}, false},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "PMIX_RANK": "3"}, Job{3, 4, 1, "Open MPI"}, true},
		{map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, Job{1, 2, 0, "PMI"}, true},
		{map[string]string{"PMIX_RANK": "7"}, Job{7, 0, 0, "PMIx"}, true},
		{map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "1"}, Job{}, false},                                      // sbatch's script
		{map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "8"}, Job{}, false},                                      // no step
		{map[string]string{"SLURM_PROCID": "5", "SLURM_NTASKS": "8", "SLURM_STEP_ID": "0"}, Job{5, 8, 0, "Slurm"}, true}, // srun
		{map[string]string{"OMPI_COMM_WORLD_RANK": "x"}, Job{}, false},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "4", "OMPI_COMM_WORLD_SIZE": "4"}, Job{4, 0, 0, "Open MPI"}, true}, // a size that cannot be is unknown
	} {
		got, ok := Detect(func(k string) string { return tc.env[k] })
		if got != tc.want || ok != tc.ok {
			t.Errorf("Detect(%v) = %+v, %v; want %+v, %v", tc.env, got, ok, tc.want, tc.ok)
		}
	}
	if d := (Job{Rank: 12}).Dir(); d != "rank-12" {
		t.Errorf("Dir = %q", d)
	}
}
