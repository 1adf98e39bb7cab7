module example.com/bigdata

go 1.22
