package goservice

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"math"
)

// constEntry is one package-level constant: its expression (after implicit
// repetition) and the iota of its spec.
type constEntry struct {
	expr ast.Expr
	typ  ast.Expr
	iota int64
}

// constEvaluator folds package-level constant expressions with go/constant,
// without type checking. It understands literals, iota, references to other
// constants of the package, unary and binary operators, parentheses and
// conversions such as uint32(x). Constants from other packages are not
// resolved.
type constEvaluator struct {
	entries map[string]constEntry
	memo    map[string]constant.Value
	busy    map[string]bool
}

func newConstEvaluator() *constEvaluator {
	return &constEvaluator{entries: map[string]constEntry{}, memo: map[string]constant.Value{}, busy: map[string]bool{}}
}

// addFile records every const declaration of f.
func (e *constEvaluator) addFile(f *ast.File) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		var prevValues []ast.Expr
		var prevType ast.Expr
		for i, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			values, typ := vs.Values, vs.Type
			if len(values) == 0 && typ == nil {
				values, typ = prevValues, prevType
			}
			prevValues, prevType = values, typ
			for j, name := range vs.Names {
				if name.Name == "_" || j >= len(values) {
					continue
				}
				e.entries[name.Name] = constEntry{expr: values[j], typ: typ, iota: int64(i)}
			}
		}
	}
}

// valueOf returns the JSON value (int64, float64, string or bool) of the
// named constant.
func (e *constEvaluator) valueOf(name string) (any, error) {
	v, err := e.lookup(name)
	if err != nil {
		return nil, err
	}
	switch v.Kind() {
	case constant.Bool:
		return constant.BoolVal(v), nil
	case constant.String:
		return constant.StringVal(v), nil
	case constant.Int:
		if i, ok := constant.Int64Val(v); ok {
			return i, nil
		}
		f, _ := constant.Float64Val(v)
		return f, nil
	case constant.Float:
		f, _ := constant.Float64Val(v)
		if math.IsInf(f, 0) {
			return nil, errors.New("value overflows float64")
		}
		return f, nil
	}
	return nil, fmt.Errorf("value %s is not a number, string or bool", v)
}

func (e *constEvaluator) lookup(name string) (constant.Value, error) {
	if v, ok := e.memo[name]; ok {
		return v, nil
	}
	entry, ok := e.entries[name]
	if !ok {
		return nil, fmt.Errorf("constant %s is not declared in the package", name)
	}
	if e.busy[name] {
		return nil, fmt.Errorf("constant %s is defined in terms of itself", name)
	}
	e.busy[name] = true
	defer delete(e.busy, name)
	v, err := e.eval(entry.expr, entry.iota)
	if err != nil {
		return nil, fmt.Errorf("constant %s: %w", name, err)
	}
	if id, ok := entry.typ.(*ast.Ident); ok && (id.Name == "float32" || id.Name == "float64") {
		v = constant.ToFloat(v)
	}
	e.memo[name] = v
	return v, nil
}

func (e *constEvaluator) eval(x ast.Expr, iota int64) (constant.Value, error) {
	switch t := x.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(t.Value, t.Kind, 0)
		if v.Kind() == constant.Unknown {
			return nil, fmt.Errorf("bad literal %s", t.Value)
		}
		return v, nil
	case *ast.ParenExpr:
		return e.eval(t.X, iota)
	case *ast.Ident:
		switch t.Name {
		case "true", "false":
			return constant.MakeBool(t.Name == "true"), nil
		case "iota":
			return constant.MakeInt64(iota), nil
		}
		return e.lookup(t.Name)
	case *ast.UnaryExpr:
		v, err := e.eval(t.X, iota)
		if err != nil {
			return nil, err
		}
		return unary(t.Op, v)
	case *ast.BinaryExpr:
		return e.binary(t, iota)
	case *ast.CallExpr:
		if len(t.Args) != 1 {
			return nil, errors.New("only single-argument conversions are supported")
		}
		v, err := e.eval(t.Args[0], iota)
		if err != nil {
			return nil, err
		}
		if id, ok := t.Fun.(*ast.Ident); ok && (id.Name == "float32" || id.Name == "float64") {
			v = constant.ToFloat(v)
		}
		return v, nil
	}
	return nil, fmt.Errorf("unsupported constant expression %T", x)
}

func unary(op token.Token, v constant.Value) (constant.Value, error) {
	switch {
	case op == token.NOT && v.Kind() == constant.Bool,
		(op == token.SUB || op == token.ADD) && (v.Kind() == constant.Int || v.Kind() == constant.Float),
		op == token.XOR && v.Kind() == constant.Int:
		return constant.UnaryOp(op, v, 0), nil
	}
	return nil, fmt.Errorf("operator %s does not apply to %s", op, v)
}

func (e *constEvaluator) binary(t *ast.BinaryExpr, iota int64) (constant.Value, error) {
	x, err := e.eval(t.X, iota)
	if err != nil {
		return nil, err
	}
	y, err := e.eval(t.Y, iota)
	if err != nil {
		return nil, err
	}
	switch t.Op {
	case token.SHL, token.SHR:
		s, ok := constant.Uint64Val(y)
		if !ok || y.Kind() != constant.Int || x.Kind() != constant.Int || s > 1024 {
			return nil, fmt.Errorf("bad shift %s %s %s", x, t.Op, y)
		}
		return constant.Shift(x, t.Op, uint(s)), nil
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		if !canCompare(x, y) {
			return nil, fmt.Errorf("cannot compare %s and %s", x, y)
		}
		return constant.MakeBool(constant.Compare(x, t.Op, y)), nil
	}
	if !operandsMatch(t.Op, x, y) {
		return nil, fmt.Errorf("operator %s does not apply to %s and %s", t.Op, x, y)
	}
	op := t.Op
	if op == token.QUO || op == token.REM {
		if constant.Sign(y) == 0 {
			return nil, errors.New("division by zero")
		}
		if op == token.QUO && x.Kind() == constant.Int && y.Kind() == constant.Int {
			op = token.QUO_ASSIGN // integer division in go/constant
		}
	}
	return constant.BinaryOp(x, op, y), nil
}

func numeric(v constant.Value) bool { return v.Kind() == constant.Int || v.Kind() == constant.Float }

func canCompare(x, y constant.Value) bool {
	return (numeric(x) && numeric(y)) || (x.Kind() == y.Kind() && x.Kind() != constant.Unknown)
}

// operandsMatch guards go/constant, which panics on mismatched operands.
func operandsMatch(op token.Token, x, y constant.Value) bool {
	switch op {
	case token.ADD:
		return (numeric(x) && numeric(y)) || (x.Kind() == constant.String && y.Kind() == constant.String)
	case token.SUB, token.MUL, token.QUO:
		return numeric(x) && numeric(y)
	case token.REM, token.AND, token.OR, token.XOR, token.AND_NOT:
		return x.Kind() == constant.Int && y.Kind() == constant.Int
	case token.LAND, token.LOR:
		return x.Kind() == constant.Bool && y.Kind() == constant.Bool
	}
	return false
}
