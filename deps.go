//go:build tools

package neardup

import (
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/parquet-go/parquet-go"
	_ "github.com/valyala/fastjson"
	_ "golang.org/x/sys/cpu"
	_ "golang.org/x/term"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/plotter"
	_ "gonum.org/v1/plot/vg/vgimg"
	_ "gonum.org/v1/plot/vg/vgsvg"
)
