package main

import (
	"fmt"

	"example.com/canmod/can"
)

func main() {
	fmt.Println(can.Encode(7).Len())
}
