package domaintest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// Handler serves f over the Extension API's HTTP routes, answering the
// handshake with hs, so a test can register it in a services file as an
// out-of-process service would be (transport "http").
func Handler(f *Fake, hs domain.HandshakeResult) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == domain.HealthPath {
			w.WriteHeader(http.StatusOK)
			return
		}
		method := strings.TrimPrefix(r.URL.Path, domain.PathPrefix)
		var req domain.Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		result, err := answer(r.Context(), f, hs, method, req)
		resp := domain.Response{RequestID: req.RequestID, Status: domain.StatusOK}
		if err != nil {
			resp.Status = domain.StatusError
			resp.Error = &domain.ErrorBody{Code: domain.CodeUnsupportedMethod, Message: err.Error()}
		} else {
			resp.Result, _ = json.Marshal(result) // plain structs: never fails
		}
		_ = json.NewEncoder(w).Encode(resp)
	})
}

func answer(ctx context.Context, f *Fake, hs domain.HandshakeResult, method string, req domain.Request) (any, error) {
	switch method {
	case domain.MethodHandshake:
		return hs, nil
	case domain.MethodValidate:
		res, _ := f.Validate(ctx, req)
		return nonNil(res), nil
	case domain.MethodReviewRules:
		res, _ := f.ReviewRules(ctx, req, domain.ReviewRulesParams{})
		return nonNil(res), nil
	case domain.MethodNormalise:
		res, _ := f.Normalise(ctx, req)
		if res.Diagnostics == nil {
			res.Diagnostics = []domain.Diagnostic{}
		}
		return res, nil
	case domain.MethodSimulate:
		var p domain.SimulateParams
		if len(req.Params) > 0 {
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, err
			}
		}
		res, _ := f.Simulate(ctx, req, p)
		if res.Tests == nil {
			res.Tests = []domain.TestResult{}
		}
		if res.Diagnostics == nil {
			res.Diagnostics = []domain.Diagnostic{}
		}
		return res, nil
	case domain.MethodExtractInterfaces:
		res, _ := f.ExtractInterfaces(ctx, req)
		if res.Declarations == nil {
			res.Declarations = []domain.Declaration{}
		}
		if res.Values == nil {
			res.Values = []domain.ContractValue{}
		}
		return res, nil
	}
	return nil, &domain.Error{Code: domain.CodeUnsupportedMethod, Message: "method " + method + " is not served by the fake"}
}

func nonNil(r domain.DiagnosticsResult) domain.DiagnosticsResult {
	if r.Diagnostics == nil {
		r.Diagnostics = []domain.Diagnostic{}
	}
	return r
}
