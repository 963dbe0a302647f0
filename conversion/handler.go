package conversion

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	kjson "sigs.k8s.io/json"
)

// Func converts one object; it may modify and return obj.
type Func func(obj map[string]any) (map[string]any, error)

// ConvertFunc converts one object to desiredAPIVersion; it may modify and
// return obj.
type ConvertFunc func(obj map[string]any, desiredAPIVersion string) (map[string]any, error)

// Pair names a conversion from one apiVersion to another.
type Pair struct{ From, To string }

// Pairs returns a ConvertFunc that converts with the function registered
// for the object's apiVersion and the desired one. A pair with no function
// is an error.
func Pairs(funcs map[Pair]Func) ConvertFunc {
	return func(obj map[string]any, desired string) (map[string]any, error) {
		from, _ := obj["apiVersion"].(string)
		f, ok := funcs[Pair{from, desired}]
		if !ok {
			return nil, fmt.Errorf("no conversion from %q to %q", from, desired)
		}
		return f(obj)
	}
}

// HubAndSpoke returns a ConvertFunc that converts through hub (an
// apiVersion): toHub[v] converts an object at v to the hub, fromHub[v]
// converts a hub object to v. Objects at the hub, or wanted at the hub,
// take one step.
func HubAndSpoke(hub string, toHub, fromHub map[string]Func) ConvertFunc {
	return func(obj map[string]any, desired string) (map[string]any, error) {
		from, _ := obj["apiVersion"].(string)
		if from != hub {
			f, ok := toHub[from]
			if !ok {
				return nil, fmt.Errorf("no conversion from %q to the hub %q", from, hub)
			}
			var err error
			if obj, err = f(obj); err != nil {
				return nil, err
			}
			obj["apiVersion"] = hub
		}
		if desired == hub {
			return obj, nil
		}
		f, ok := fromHub[desired]
		if !ok {
			return nil, fmt.Errorf("no conversion from the hub %q to %q", hub, desired)
		}
		return f(obj)
	}
}

// DefaultMaxRequestBytes bounds a review a Handler reads. The server sends
// whole lists (every item not at the desired version) in one review, so
// this is the client's bound on answers, not the API's 3 MiB request limit.
const DefaultMaxRequestBytes = DefaultMaxResponseBytes

// Handler is an http.Handler serving a conversion webhook: it decodes a
// ConversionReview (apiextensions.k8s.io/v1 or v1beta1) from a POSTed JSON
// body, converts each object with Convert (objects already at the desired
// version are returned as they are), sets each converted object's
// apiVersion, and answers a ConversionReview of the request's version with
// the request's uid. An error from Convert answers a Failure result with
// the error's text, as the server expects; a body that is not a review is
// answered 400, a method other than POST 405, a body longer than
// MaxRequestBytes 413. It is safe for concurrent use when Convert is.
type Handler struct {
	Convert ConvertFunc
	// MaxRequestBytes bounds the body (DefaultMaxRequestBytes when zero).
	MaxRequestBytes int64
}

// NewHandler returns a Handler with convert and the default limits.
func NewHandler(convert ConvertFunc) *Handler { return &Handler{Convert: convert} }

// review is the wire form of both ConversionReview versions, decoded
// case-sensitively with integers kept as int64.
type review struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Request    *reviewRequestW `json:"request,omitempty"`
	Response   *reviewResponse `json:"response,omitempty"`
}

type reviewRequestW struct {
	UID               string `json:"uid"`
	DesiredAPIVersion string `json:"desiredAPIVersion"`
	Objects           []any  `json:"objects"`
}

type reviewResponse struct {
	UID              string           `json:"uid"`
	ConvertedObjects []map[string]any `json:"convertedObjects"`
	Result           result           `json:"result"`
}

type result struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// ServeHTTP answers one conversion review.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "conversion reviews are POSTed", http.StatusMethodNotAllowed)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			http.Error(w, "expected Content-Type application/json", http.StatusUnsupportedMediaType)
			return
		}
	}
	limit := h.MaxRequestBytes
	if limit <= 0 {
		limit = DefaultMaxRequestBytes
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("request body larger than %d bytes", limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := h.Review(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(resp)
}

// Review answers one ConversionReview body with the response body, or
// returns an error for a body that is not a v1 or v1beta1
// ConversionReview with a request.
func (h *Handler) Review(body []byte) ([]byte, error) {
	var in review
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &in); err != nil {
		return nil, fmt.Errorf("not a ConversionReview: %v", err)
	}
	if in.Kind != "ConversionReview" || (in.APIVersion != "apiextensions.k8s.io/v1" && in.APIVersion != "apiextensions.k8s.io/v1beta1") {
		return nil, fmt.Errorf("not a ConversionReview: apiVersion %q, kind %q", in.APIVersion, in.Kind)
	}
	if in.Request == nil {
		return nil, errors.New("not a ConversionReview request: no request")
	}
	out := review{APIVersion: in.APIVersion, Kind: "ConversionReview",
		Response: &reviewResponse{UID: in.Request.UID, Result: result{Status: "Success"}}}
	converted, err := h.convertAll(in.Request)
	if err != nil {
		out.Response.Result = result{Status: "Failure", Message: err.Error()}
	} else {
		out.Response.ConvertedObjects = converted
	}
	return json.Marshal(out)
}

// convertAll converts the request's objects in order.
func (h *Handler) convertAll(req *reviewRequestW) (out []map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("conversion failed: %v", p)
		}
	}()
	out = make([]map[string]any, 0, len(req.Objects))
	for i, raw := range req.Objects {
		obj, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("object %d is not a JSON object", i)
		}
		if av, _ := obj["apiVersion"].(string); av != req.DesiredAPIVersion {
			if h.Convert == nil {
				return nil, errors.New("no converter")
			}
			if obj, err = h.Convert(obj, req.DesiredAPIVersion); err != nil {
				return nil, err
			}
			if obj == nil {
				return nil, fmt.Errorf("object %d: the converter returned no object", i)
			}
			obj["apiVersion"] = req.DesiredAPIVersion
		}
		out = append(out, obj)
	}
	return out, nil
}
