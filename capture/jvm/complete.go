package jvm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// HPROF top-level records that frame a heap dump in segments.
const (
	tagHeapDumpSeg = 0x1C
	tagHeapDumpEnd = 0x2C
)

// checkComplete walks the top-level records of the HPROF file at path by
// their lengths and fails when the file ends inside a record, or after a
// HEAP_DUMP_SEGMENT without the HEAP_DUMP_END that closes every HotSpot
// dump: what a JVM leaves when its write fails part way (a full disk),
// while jcmd still exits 0.
func checkComplete(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	head := make([]byte, min(size, 64))
	if _, err := io.ReadFull(f, head); err != nil {
		return err
	}
	nul := -1
	for i, b := range head {
		if b == 0 {
			nul = i
			break
		}
	}
	off := int64(nul + 1 + 4 + 8)
	if nul < 0 || off > size {
		return errors.New("the file ends inside its header")
	}
	open := false
	var rec [9]byte
	for off < size {
		if _, err := f.ReadAt(rec[:], off); err != nil {
			return fmt.Errorf("the file ends inside the record header at offset %d", off)
		}
		end := off + 9 + int64(binary.BigEndian.Uint32(rec[5:]))
		if end > size {
			return fmt.Errorf("the file ends at %d, inside a record of %d bytes at offset %d", size, end-off, off)
		}
		switch rec[0] {
		case tagHeapDumpSeg:
			open = true
		case tagHeapDumpEnd:
			open = false
		}
		off = end
	}
	if open {
		return fmt.Errorf("the heap dump has no HEAP_DUMP_END after %d bytes", size)
	}
	return nil
}

// freeSpace describes the free space of the file system that holds dir,
// for an error about a dump cut short: "" when it cannot tell.
func freeSpace(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return ""
	}
	free := st.Bavail * uint64(st.Bsize)
	if free < 1<<20 {
		return fmt.Sprintf("; the file system of %s is full (%d bytes free)", dir, free)
	}
	return fmt.Sprintf("; the file system of %s has %d MiB free", dir, free>>20)
}
