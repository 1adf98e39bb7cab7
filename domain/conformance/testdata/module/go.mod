module example.com/conformance

go 1.22
