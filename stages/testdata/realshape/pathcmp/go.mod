module example.com/pathcmp

go 1.22
