module example.com/mapmod

go 1.22
