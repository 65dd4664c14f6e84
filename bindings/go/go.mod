module github.com/aeronrs/aeronrs/bindings/go

go 1.21
