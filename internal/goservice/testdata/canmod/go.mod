module example.com/canmod

go 1.22
