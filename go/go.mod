module dbbench/go

go 1.26.8
