module example.com/basefail

go 1.22
