package process

// RunReport is the report of one invocation, for process_test.
type RunReport = runReport
