package cmdservice

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// junitCase is one <testcase>. The attributes file and line are pytest's
// (junit_family=xunit1) and vitest's; Surefire and nextest leave them out.
type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Line      string        `xml:"line,attr"`
	Time      string        `xml:"time,attr"`
	Failures  []junitDetail `xml:"failure"`
	Errors    []junitDetail `xml:"error"`
	Skipped   []junitDetail `xml:"skipped"`
	// Flaky and rerun outcomes (Surefire's rerunFailure, flakyFailure)
	// are failures seen at some point: a test that failed once is failed.
	RerunFailures []junitDetail `xml:"rerunFailure"`
	FlakyFailures []junitDetail `xml:"flakyFailure"`
	RerunErrors   []junitDetail `xml:"rerunError"`
	FlakyErrors   []junitDetail `xml:"flakyError"`
	SystemOut     string        `xml:"system-out"`
	SystemErr     string        `xml:"system-err"`
}

type junitDetail struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSuite struct {
	Name   string       `xml:"name,attr"`
	File   string       `xml:"file,attr"`
	Cases  []junitCase  `xml:"testcase"`
	Suites []junitSuite `xml:"testsuite"`
}

// junitCaseResult is one test read from a report.
type junitCaseResult struct {
	name, pkg, file string
	line            int
	passed, skipped bool
	elapsedMS       int64
	output          string
}

// parseJUnit reads a JUnit XML report whose root is <testsuites> or a
// single <testsuite> (nested suites included, and test cases directly
// under <testsuites>, as node --test writes them). A test with a failure or
// error anywhere, even alongside a skip, has failed.
func parseJUnit(data []byte) ([]junitCaseResult, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var root xml.StartElement
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("parse JUnit XML: no root element")
		}
		if err != nil {
			return nil, fmt.Errorf("parse JUnit XML: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			root = se
			break
		}
	}
	var suites []junitSuite
	switch root.Name.Local {
	case "testsuites":
		// node --test's reporter puts a test outside any describe()
		// directly under <testsuites>: it is a suite of its own.
		var ss junitSuite
		if err := dec.DecodeElement(&ss, &root); err != nil {
			return nil, fmt.Errorf("parse JUnit XML: %w", err)
		}
		suites = ss.Suites
		if len(ss.Cases) > 0 {
			suites = append([]junitSuite{{Cases: ss.Cases}}, suites...)
		}
	case "testsuite":
		var s junitSuite
		if err := dec.DecodeElement(&s, &root); err != nil {
			return nil, fmt.Errorf("parse JUnit XML: %w", err)
		}
		suites = []junitSuite{s}
	default:
		return nil, fmt.Errorf("parse JUnit XML: root element <%s> is neither <testsuites> nor <testsuite>", root.Name.Local)
	}
	var out []junitCaseResult
	var walk func(s junitSuite)
	walk = func(s junitSuite) {
		for _, c := range s.Cases {
			out = append(out, caseResult(s, c))
		}
		for _, sub := range s.Suites {
			walk(sub)
		}
	}
	for _, s := range suites {
		walk(s)
	}
	return out, nil
}

func caseResult(s junitSuite, c junitCase) junitCaseResult {
	r := junitCaseResult{name: c.Name, pkg: c.Classname, file: c.File}
	if r.pkg == "" {
		r.pkg = s.Name
	}
	if r.file == "" {
		r.file = s.File
	}
	r.line, _ = strconv.Atoi(c.Line)
	if secs, err := strconv.ParseFloat(c.Time, 64); err == nil && secs > 0 {
		r.elapsedMS = int64(secs * 1000)
	}
	var failed []junitDetail
	for _, group := range [][]junitDetail{c.Failures, c.Errors, c.RerunFailures, c.FlakyFailures, c.RerunErrors, c.FlakyErrors} {
		failed = append(failed, group...)
	}
	var b strings.Builder
	for _, d := range failed {
		if d.Message != "" {
			b.WriteString(d.Message + "\n")
		}
		if t := strings.TrimSpace(d.Text); t != "" {
			b.WriteString(t + "\n")
		}
	}
	switch {
	case len(failed) > 0:
		r.passed = false
	case len(c.Skipped) > 0:
		r.passed, r.skipped = true, true
		b.WriteString(strings.TrimSpace(c.Skipped[0].Message))
	default:
		r.passed = true
	}
	if !r.passed {
		for _, s := range []string{c.SystemOut, c.SystemErr} {
			if t := strings.TrimSpace(s); t != "" {
				b.WriteString(t + "\n")
			}
		}
	}
	r.output = b.String()
	return r
}
