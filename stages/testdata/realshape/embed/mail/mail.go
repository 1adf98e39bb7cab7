// Package mail renders the messages the service sends from templates
// embedded in the binary.
package mail

import (
	"embed"
	"strings"
	"text/template"
)

//go:embed templates
var templates embed.FS

//go:embed signature.txt
var signature string

// Welcome renders the welcome message for name, signed.
func Welcome(name string) (string, error) {
	t, err := template.ParseFS(templates, "templates/*.tmpl", "templates/parts/*.tmpl")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "welcome.tmpl", map[string]string{"Name": name}); err != nil {
		return "", err
	}
	return b.String() + signature, nil
}
