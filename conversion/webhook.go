package conversion

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/rest"
	netutils "k8s.io/utils/net"
)

// Defaults of WebhookOptions: the server's webhook timeout, and a bound on
// what one answer may hold.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxResponseBytes = 64 << 20
)

// WebhookOptions configure NewWebhook. The zero value calls the CRD's
// webhook as the server does.
type WebhookOptions struct {
	// Resolver turns a service reference (namespace, name, port) into the
	// URL to call, as the server's service resolver does; it is required
	// for CRDs whose webhook is a service.
	Resolver func(namespace, name string, port int32) (*url.URL, error)
	// URL, when set, is called instead of the CRD's clientConfig.
	URL string
	// CABundle, when set, replaces the CRD's caBundle.
	CABundle []byte
	// Timeout bounds each call, reading the answer included (default
	// DefaultTimeout, the server's).
	Timeout time.Duration
	// MaxResponseBytes bounds an answer's body (default
	// DefaultMaxResponseBytes); a longer one fails the call.
	MaxResponseBytes int64
}

// Webhook is a conversion webhook client for one CRD: it sends the
// ConversionReview the server sends and checks the answer as the server
// does. It is immutable and safe for concurrent use.
type Webhook struct {
	crd      string
	versions []string // conversionReviewVersions, in the CRD's order
	client   *rest.RESTClient
}

// NewWebhook returns the webhook client of crd, whose conversion strategy
// must be Webhook. The transport is the server's (client-go's REST client
// with the CRD's caBundle, HTTP/1.1 except to loopback hosts); it follows
// redirects as the server does.
func NewWebhook(crd *apiextensionsv1.CustomResourceDefinition, opts WebhookOptions) (*Webhook, error) {
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return nil, fmt.Errorf("CRD %s has no conversion webhook", crd.Name)
	}
	cc := clientConfig(crd, opts)
	if cc.service != nil && opts.Resolver == nil {
		return nil, fmt.Errorf("CRD %s: the conversion webhook is a service and no resolver was given", crd.Name)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := opts.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	cfg, err := cc.restConfig(opts.Resolver)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "kube-apiserver-admission"
	cfg.Timeout = timeout
	cfg.QPS = -1 // no client-side rate limit, as the server
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return limitedTransport{rt, limit} })
	client, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return &Webhook{crd: crd.Name, versions: append([]string(nil), conv.Webhook.ConversionReviewVersions...), client: client}, nil
}

// hookConfig is where and how the server calls a webhook.
type hookConfig struct {
	url      string
	service  *apiextensionsv1.ServiceReference
	caBundle []byte
}

// clientConfig is the server's webhook client configuration for crd, with
// opts' overrides.
func clientConfig(crd *apiextensionsv1.CustomResourceDefinition, opts WebhookOptions) hookConfig {
	in := crd.Spec.Conversion.Webhook.ClientConfig
	ca := in.CABundle
	if opts.CABundle != nil {
		ca = opts.CABundle
	}
	if len(ca) > 0 && len(bytes.TrimSpace(ca)) == 0 {
		ca = nil // the server treats a blank caBundle as none
	}
	cc := hookConfig{caBundle: ca}
	switch {
	case opts.URL != "":
		cc.url = opts.URL
	case in.URL != nil:
		cc.url = *in.URL
	case in.Service != nil:
		cc.service = in.Service
	}
	return cc
}

// restConfig is the REST client configuration the server's webhook client
// manager builds: the URL's scheme, host and path (port 443 by default);
// for a service, https://<name>.<namespace>.svc:<port><path> dialled at the
// resolver's address with that server name; HTTP/1.1 except to loopback
// hosts; the CA bundle; JSON ConversionReviews v1 and v1beta1.
func (cc hookConfig) restConfig(resolve func(namespace, name string, port int32) (*url.URL, error)) (*rest.Config, error) {
	cfg := &rest.Config{}
	if s := cc.service; s != nil {
		port := int32(443)
		if s.Port != nil && *s.Port != 0 {
			port = *s.Port
		}
		serverName := s.Name + "." + s.Namespace + ".svc"
		host := net.JoinHostPort(serverName, strconv.Itoa(int(port)))
		cfg.Host = "https://" + host
		if s.Path != nil {
			cfg.APIPath = *s.Path
		}
		cfg.NextProtos = []string{"http/1.1"}
		cfg.TLSClientConfig.ServerName = serverName
		var d net.Dialer
		ns, name := s.Namespace, s.Name
		cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == host {
				u, err := resolve(ns, name, port)
				if err != nil {
					return nil, err
				}
				addr = u.Host
			}
			return d.DialContext(ctx, network, addr)
		}
	} else {
		if cc.url == "" {
			return nil, errors.New("webhook configuration must have either service or URL")
		}
		u, err := url.Parse(cc.url)
		if err != nil {
			return nil, fmt.Errorf("Unparsable URL: %v", err)
		}
		cfg.Host = u.Scheme + "://" + u.Host
		cfg.APIPath = u.Path
		if !isLoopback(u) {
			cfg.NextProtos = []string{"http/1.1"}
		}
	}
	cfg.TLSClientConfig.CAData = append([]byte(nil), cc.caBundle...)
	codec, err := reviewCodec()
	if err != nil {
		return nil, err
	}
	cfg.ContentConfig.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec})
	cfg.ContentConfig.ContentType = runtime.ContentTypeJSON
	return cfg, nil
}

// reviewCodec is the server's codec for ConversionReviews v1 and v1beta1.
func reviewCodec() (runtime.Codec, error) {
	scheme := runtime.NewScheme()
	if err := v1beta1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return serializer.NewCodecFactory(scheme).LegacyCodec(apiextensionsv1.SchemeGroupVersion, v1beta1.SchemeGroupVersion), nil
}

// isLoopback reports whether u names localhost or a loopback address.
func isLoopback(u *url.URL) bool {
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := netutils.ParseIPSloppy(h)
	return ip != nil && ip.IsLoopback()
}

// Convert converts obj (a single object) to apiVersion through the
// webhook, as the server's webhook converter does: an object holding only
// apiVersion and kind, or already at apiVersion, is not sent (and is
// returned as is, after the apiVersion rewrite for the first); the answer
// is checked and the metadata restored (RestoreMetadata). obj is not
// modified. Errors carry the server's texts.
func (w *Webhook) Convert(ctx context.Context, obj map[string]any, apiVersion string) (map[string]any, error) {
	if isEmpty(obj) {
		out := deepCopy(obj).(map[string]any)
		None(out, apiVersion)
		return out, nil
	}
	return w.convert(ctx, obj, false, apiVersion)
}

// ConvertList converts a list's items to apiVersion through the webhook,
// sending only the items not at apiVersion and splicing the answers back
// at their positions; the list's apiVersion is set. list is not modified.
func (w *Webhook) ConvertList(ctx context.Context, list map[string]any, apiVersion string) (map[string]any, error) {
	return w.convert(ctx, list, true, apiVersion)
}

func (w *Webhook) convert(ctx context.Context, in map[string]any, isList bool, apiVersion string) (map[string]any, error) {
	toGV, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	desired := toGV.String()
	uid := uuid.NewUUID()
	idx := toConvert(in, isList, desired)
	its := items(in)
	send := make([]map[string]any, len(idx))
	for i, j := range idx {
		if isList {
			send[i] = its[j]
		} else {
			send[i] = in
		}
	}
	req, resp, err := reviewRequest(w.versions, send, desired, uid)
	if err != nil {
		return nil, err
	}
	if len(idx) == 0 {
		if !isList {
			return in, nil
		}
		out := deepCopy(in).(map[string]any)
		out["apiVersion"] = desired
		return out, nil
	}
	inGVK := gvk(in)
	if err := w.client.Post().Body(req).Do(ctx).Into(resp); err != nil {
		return nil, fmt.Errorf("conversion webhook for %v failed: %v", inGVK, err)
	}
	return finish(in, isList, toGV, idx, uid, resp)
}

// finish checks the webhook's decoded answer resp to the review uid that
// sent the objects of in at positions idx, and returns the converted
// object or list.
func finish(in map[string]any, isList bool, toGV schema.GroupVersion, idx []int, uid types.UID, resp runtime.Object) (map[string]any, error) {
	desired := toGV.String()
	inGVK := gvk(in)
	objs, err := convertedObjects(uid, resp)
	if err != nil {
		return nil, fmt.Errorf("conversion webhook for %v failed: %v", inGVK, err)
	}
	if len(objs) != len(idx) {
		return nil, fmt.Errorf("conversion webhook for %v returned %d objects, expected %d", inGVK, len(objs), len(idx))
	}
	if !isList {
		out, err := decodeConverted(objs[0])
		if err != nil {
			return nil, err
		}
		if got := gvk(out).GroupVersion(); got != toGV {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid object at index 0: invalid groupVersion (expected %v, received %v)", inGVK, toGV, got)
		}
		if e, a := inGVK.Kind, gvk(out).Kind; e != a {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid object at index 0: invalid kind (expected %v, received %v)", inGVK, e, a)
		}
		if err := sameIdentity(in, out); err != nil {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid object: %v", inGVK, err)
		}
		if err := RestoreMetadata(in, out); err != nil {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid metadata: %v", inGVK, err)
		}
		return out, nil
	}
	out := deepCopy(in).(map[string]any)
	outItems, _ := out["items"].([]any)
	pos := 0
	for i, it := range outItems {
		orig, ok := it.(map[string]any)
		if !ok || str(orig, "apiVersion") == desired {
			continue // not sent
		}
		conv, err := decodeConverted(objs[pos])
		if err != nil {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid converted object at index %v: %v", inGVK, pos, err)
		}
		if got := gvk(conv).GroupVersion(); got != toGV {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid converted object at index %v: invalid groupVersion (expected %v, received %v)", inGVK, pos, toGV, got)
		}
		if e, a := gvk(orig).Kind, gvk(conv).Kind; e != a {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid converted object at index %v: invalid kind (expected %v, received %v)", inGVK, pos, e, a)
		}
		if err := sameIdentity(orig, conv); err != nil {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid converted object at index %v: %v", inGVK, pos, err)
		}
		if err := RestoreMetadata(orig, conv); err != nil {
			return nil, fmt.Errorf("conversion webhook for %v returned invalid metadata in object at index %v: %v", inGVK, pos, err)
		}
		pos++
		outItems[i] = conv
	}
	out["apiVersion"] = desired
	return out, nil
}

// limitedTransport fails the reading of answer bodies longer than limit.
type limitedTransport struct {
	rt    http.RoundTripper
	limit int64
}

func (t limitedTransport) WrappedRoundTripper() http.RoundTripper { return t.rt }

func (t limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.limit}
	return resp, nil
}

// ErrResponseTooLarge is the reason a call fails when the webhook's answer
// is longer than WebhookOptions.MaxResponseBytes.
var ErrResponseTooLarge = errors.New("conversion webhook response too large")

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, ErrResponseTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, ErrResponseTooLarge
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
