module github.com/heapscope/heapscope

go 1.24
