package processall

// The query and selection rules, for processall_test.
var (
	ParseShard    = parseShard
	WorkItemQuery = workItemQuery
	SelectWork    = selectWork
	CommandQuery  = commandQuery
)

// DefaultCommandWindow is the default --command-window.
const DefaultCommandWindow = defaultCommandWindow
