// Package server is the transport of `cogworks serve`: it receives GitHub
// App webhook deliveries, verifies their X-Hub-Signature-256, turns the
// issues, issue_comment, pull_request, review, CI and push events into work items and steps
// them on a bounded queue through a Runner, which calls the same
// engine.Run as the CLI and the Action.
//
// Contracts:
//   - What the headers alone condemn is refused before the body is read:
//     an event CogWorks does not handle (400), a missing or malformed
//     signature (401), a content type other than JSON (415), a declared
//     length over MaxBody (413). A body is read only within the
//     MaxInFlight byte budget shared by all connections (503 when it
//     stays exhausted for BodyWait), through http.MaxBytesReader at a
//     minimum pace (408 when it falls behind), hashing as it goes;
//     HTTPServer and Listener bound time, headers and connections.
//   - A delivery with a wrong signature gets 401 and is not parsed
//     further. A signed body whose shape does not fit its X-GitHub-Event
//     (which the signature does not cover) gets 400; only handled event
//     names become metric labels.
//   - A body accepted within ReplayWindow is dropped when it comes again
//     under another delivery id (200 "duplicate", counted as replay).
//   - The queue holds work items, keyed by (installation, repository,
//     issue), not deliveries: a delivery for a waiting item merges into
//     it, one for an item being stepped marks it to run once more when
//     the step ends, so the same item is never stepped twice at once in
//     one process and a burst takes one slot per item. QueueSize bounds
//     the waiting items.
//   - A delivery for a new item beyond the bound (or while draining) gets
//     503, is not remembered, and is recorded (Refused). GitHub does not
//     retry it; Recoverer redelivers it from the App's delivery log. An
//     accepted delivery id is remembered (bounded) and a duplicate gets
//     200.
//   - Replicas are safe: the processing lock lives in GitHub, so several
//     processes stepping one item serialise there.
//   - Shutdown stops accepting (503), lets in-flight steps finish within
//     the grace period, then cancels them; the engine releases its lock on
//     every path with a context that survives the cancellation.
package server
