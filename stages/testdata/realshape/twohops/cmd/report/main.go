// Command report prints a distance for people.
package main

import (
	"fmt"
	"os"
	"strconv"

	"example.com/twohops/internal/render"
)

func main() {
	m, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(render.Distance(m))
}
