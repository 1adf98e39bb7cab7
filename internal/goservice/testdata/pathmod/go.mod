module example.com/pathmod

go 1.22
