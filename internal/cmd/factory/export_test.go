package factory

// What factory_test reaches that no other package needs.
var (
	ParseEvent         = parseEvent
	ServiceEnv         = serviceEnv
	Inline             = inlineRequest
	DomainTenant       = domainTenant
	BuiltinServiceName = builtinServiceName
)

// The domain wrappers StageDeps puts around a service.
type (
	InlineRepoDomain = inlineRepoDomain
	TenantDomain     = tenantDomain
)
