package serve

// What serve_test reaches that no other package needs.
var NewAppSource = newAppSource

// HookLog is the App's delivery log as the recoverer reads it.
type HookLog = hookLog

// EnvDomainInlineRepo is the environment form of --domain-inline-repo.
const EnvDomainInlineRepo = envDomainInlineRepo
