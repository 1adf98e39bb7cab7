module example.com/rootlib

go 1.22
