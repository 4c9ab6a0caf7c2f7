//go:build tools

package neardup

import (
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/parquet-go/parquet-go"
	_ "github.com/valyala/fastjson"
	_ "golang.org/x/sys/cpu"
	_ "golang.org/x/term"
)
