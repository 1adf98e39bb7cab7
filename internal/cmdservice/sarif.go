package cmdservice

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// sarifLog holds the fields of a SARIF 2.1.0 log this service reads; the
// rest of the format (tool, rules, fixes, code flows) is ignored.
type sarifLog struct {
	Version string `json:"version"`
	Runs    []struct {
		Results []struct {
			RuleID  string `json:"ruleId"`
			Level   string `json:"level"`
			Message struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// finding is one diagnostic as a tool reported it, before its path is
// mapped into the repository.
type finding struct {
	file         string
	line, column int
	// level is SARIF's: error, warning, note or none.
	level   string
	rule    string
	message string
}

// looksLikeSARIF reports whether out is a JSON object (a SARIF log starts
// with one; compiler-style lines never do).
func looksLikeSARIF(out []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(out), []byte("{"))
}

// parseSARIF reads the results of every run. A result without a level is
// a warning, SARIF's default; one without a location has an empty file.
func parseSARIF(data []byte) ([]finding, error) {
	var log sarifLog
	if err := json.Unmarshal(data, &log); err != nil {
		return nil, fmt.Errorf("parse SARIF: %w", err)
	}
	if log.Version != "" && log.Version != "2.1.0" {
		return nil, fmt.Errorf("parse SARIF: version %q is not 2.1.0", log.Version)
	}
	var out []finding
	for _, run := range log.Runs {
		for _, r := range run.Results {
			f := finding{level: r.Level, rule: r.RuleID, message: r.Message.Text}
			if f.level == "" {
				f.level = "warning"
			}
			if len(r.Locations) > 0 {
				pl := r.Locations[0].PhysicalLocation
				f.file = pl.ArtifactLocation.URI
				f.line, f.column = pl.Region.StartLine, pl.Region.StartColumn
			}
			out = append(out, f)
		}
	}
	return out, nil
}
