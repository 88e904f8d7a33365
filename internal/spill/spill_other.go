//go:build !linux

package spill

import (
	"errors"
	"os"
)

// Files are mapped on Linux only: elsewhere arrays stay in memory.
const canMap = false

func mmap(*os.File, int) ([]byte, error) { return nil, errors.New("spill: not on this system") }

func unmap([]byte) {}

func dontNeed([]byte) {}

func watch() {}
