// Package status is the status command: where a work item stands (text,
// json or the Mermaid state diagram).
package status
