module aeronrs/interop/go

go 1.22
