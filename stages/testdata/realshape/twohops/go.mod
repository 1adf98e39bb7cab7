module example.com/twohops

go 1.22
