package ignored

func Hidden() {}
