module dbbench/schema

go 1.26.8
