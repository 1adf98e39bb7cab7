// Package prompts holds CogWorks's prompt templates: one Markdown file per
// LLM call, embedded in the binary, overridable per repository by
// <repo>/.cogworks/prompts/<name>.md.
//
// A template file declares its variables in front-matter comments, then
// holds a system part and a user part, each a text/template body:
//
//	<!-- requires: Title, Body, Modules -->
//	<!-- optional: Feedback -->
//	<!-- system -->
//	…
//	<!-- user -->
//	…
//
// Template.Render fails before anything is sent when a required variable is
// missing, naming it and the template; optional variables default to nil.
//
// Untrusted input (issue text, comments, repository files, tool output and
// earlier LLM output) is framed with the `untrusted LABEL VALUE` and
// `untrustedFile PATH CONTENT` functions: BEGIN/END markers tied by an id
// derived from the content, a code fence longer than any backtick run in
// the content, and marker phrases inside the content defused, so data can
// neither close its frame nor forge a new one. Every system prompt carries
// DataPolicy (added by Render if an override omits it), telling the model
// that framed text is data, never instructions. Other functions: `json`
// (indented JSON), `bullets` (Markdown list), `dataPolicy`.
//
// Variables of the embedded templates (file-like values need Path and
// Content fields or keys; other values may be strings, string slices or
// anything JSON-encodable):
//
//	classify             Title, Body, Modules; optional Feedback
//	architecture         Title, Body, Classification, Modules, Context (files); optional Feedback
//	interface_design     Title, Body, Spec, Modules; optional Context (files), Feedback
//	planning             Title, Spec, Interfaces, MaxItems; optional Feedback
//	code_generation      SWI, Interfaces, Context (files); optional Dependencies (files), Feedback
//	interpret_failure    SWI, Failure; optional Files (files)
//	review_quality       SWI, Files (files); optional Standards
//	review_architecture  SWI, Files (files), Spec; optional Constraints
//	review_security      SWI, Files (files); optional SafetyCritical
//	llm_judge            Criteria, Observation; optional Scenario
//
// Set implements the llm.Renderer port. Loading reads the override file on
// each call (no caching), so it is safe for concurrent use.
package prompts
