module example.com/gofmt

go 1.22
