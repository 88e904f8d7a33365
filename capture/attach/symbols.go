package attach

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// mapping is one line of /proc/PID/maps that maps a file.
type mapping struct {
	start, end, offset uint64
	path               string
}

// fileMappings returns the file mappings of process pid.
func fileMappings(pid int) ([]mapping, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		return nil, err
	}
	var out []mapping
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 6 || !strings.HasPrefix(f[5], "/") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(f[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, mapping{start, end, off, strings.TrimSuffix(strings.Join(f[5:], " "), " (deleted)")})
	}
	return out, nil
}

// symbolAddrs finds where the functions names of the ELF file at file
// (which process pid maps as mapped, its /proc/PID/maps name) are in the
// process: the load bias (where the mapping at file offset 0 starts, less
// the first loadable segment's page) plus each symbol's value. Each
// address is checked against the process's memory: the first bytes of
// the function there must be those of the file, so that a wrong address
// is never called.
func symbolAddrs(pid int, file, mapped string, maps []mapping, names ...string) (map[string]uint64, error) {
	base, found := uint64(0), false
	for _, m := range maps {
		if m.path == mapped && m.offset == 0 {
			base, found = m.start, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("process %d does not map %s from its start", pid, mapped)
	}
	f, err := elf.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var first *elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			first = p
			break
		}
	}
	if first == nil {
		return nil, fmt.Errorf("%s has no loadable segment", file)
	}
	var bias uint64
	if f.Type == elf.ET_DYN {
		bias = base - first.Vaddr&^0xfff
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	mem, err := os.Open("/proc/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	out := map[string]uint64{}
	for _, s := range syms {
		if !want[s.Name] || s.Section == elf.SHN_UNDEF || elf.ST_TYPE(s.Info) != elf.STT_FUNC || out[s.Name] != 0 {
			continue
		}
		addr := bias + s.Value
		if err := sameCode(f, mem, s.Value, addr); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", s.Name, filepath.Base(file), err)
		}
		out[s.Name] = addr
	}
	for _, n := range names {
		if out[n] == 0 {
			return nil, fmt.Errorf("%s does not export %s", file, n)
		}
	}
	return out, nil
}

// sameCode checks that the 16 bytes at addr in the process (mem) are the
// file's bytes at virtual address vaddr.
func sameCode(f *elf.File, mem *os.File, vaddr, addr uint64) error {
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || vaddr < p.Vaddr || vaddr+16 > p.Vaddr+p.Filesz {
			continue
		}
		want := make([]byte, 16)
		if _, err := p.ReadAt(want, int64(vaddr-p.Vaddr)); err != nil {
			return err
		}
		got := make([]byte, 16)
		if _, err := mem.ReadAt(got, int64(addr)); err != nil {
			return fmt.Errorf("cannot read the process's memory at %#x: %w", addr, err)
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("the process has other code at %#x than the file says", addr)
		}
		return nil
	}
	return fmt.Errorf("no loadable segment holds address %#x", vaddr)
}

// libcMapping returns the /proc/PID/maps name of the C library process
// maps (glibc's libc.so.6 or libc-2.x.so, or musl's loader, which is its
// C library), or "".
func libcMapping(maps []mapping) string {
	for _, m := range maps {
		b := filepath.Base(m.path)
		if strings.HasPrefix(b, "libc.so") || strings.HasPrefix(b, "libc-") || strings.HasPrefix(b, "ld-musl-") {
			return m.path
		}
	}
	return ""
}
