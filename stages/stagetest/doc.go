// Package stagetest holds the fixtures the stage tests share: an
// issue-to-plan fixture (FHFixture), a build fixture for code generation
// and scenario validation (BuildFixture) and a review-and-integration
// fixture (ShipFixture), each over the GitHub simulator with a scripted
// LLM, running stages through stages.Executors. Tests only: no binary
// links it (internal/linkguard's TestBinariesDoNotLinkTestPackages).
package stagetest
