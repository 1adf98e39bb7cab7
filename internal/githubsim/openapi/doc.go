// Package openapi checks CogWorks's GitHub traffic against GitHub's own
// REST API description.
package openapi
