module github.com/heapscope/heapscope/browsertest

go 1.26.0

replace github.com/heapscope/heapscope => ../

require (
	github.com/chromedp/cdproto v0.160.1
	github.com/chromedp/chromedp v0.23.1
	github.com/heapscope/heapscope v0.0.0-00010101000000-000000000000
)

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b // indirect
)
