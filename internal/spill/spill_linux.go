package spill

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// watchEvery is how often the watchdog reads the resident set: what the
// process touches between two looks is its margin over 3/4 of the
// budget.
const watchEvery = 2 * time.Millisecond

// canMap: arrays may go to files here.
const canMap = true

func mmap(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmap(b []byte) { syscall.Munmap(b) }

func dontNeed(b []byte) { syscall.Madvise(b, syscall.MADV_DONTNEED) }

// watch trims the mapped pages whenever the resident set passes 3/4 of
// the budget and file-backed pages are more than 1/16 of it. It runs
// until the process ends.
func watch() {
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		return
	}
	page := int64(os.Getpagesize())
	buf := make([]byte, 128)
	for {
		time.Sleep(watchEvery)
		l := limit.Load()
		if l == 0 {
			continue
		}
		// Only when mapped pages are a good part of the resident set:
		// dropping a few would gain nothing and cost their reads back.
		if rss, shared := resident(f, buf); rss*page > l-l/4 && shared*page > l/16 {
			trim()
		}
	}
}

// resident returns the pages the process has in memory and how many of
// them are file-backed (statm's second and third fields), or zeros when
// it cannot tell.
func resident(f *os.File, buf []byte) (rss, shared int64) {
	n, _ := f.ReadAt(buf, 0)
	fields := bytes.Fields(buf[:n])
	if len(fields) < 3 {
		return 0, 0
	}
	rss, _ = strconv.ParseInt(string(fields[1]), 10, 64)
	shared, _ = strconv.ParseInt(string(fields[2]), 10, 64)
	return rss, shared
}
