package crfake

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdkit/crdkit"
)

// Status implements client.Client: the status subresource.
func (c *Client) Status() client.SubResourceWriter { return c.SubResource("status") }

// SubResource implements client.Client: "status" and "scale" for the CRDs'
// kinds; the fake client's subresources for the others.
func (c *Client) SubResource(sub string) client.SubResourceClient {
	return &subClient{c: c, sub: sub}
}

type subClient struct {
	c   *Client
	sub string
}

func (s *subClient) notFound(r *resource, name string) error {
	return apierrors.NewNotFound(r.gr, name)
}

// Get implements client.SubResourceReader: the Scale of the object.
func (s *subClient) Get(ctx context.Context, obj, subObj client.Object, opts ...client.SubResourceGetOption) error {
	r, v, _, err := s.c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return s.c.delegate.SubResource(s.sub).Get(ctx, obj, subObj, opts...)
	}
	if isNil(subObj) {
		return errNilObject
	}
	if err := r.checkNamespace(obj.GetNamespace(), false); err != nil {
		return err
	}
	_, unstr := obj.(runtime.Unstructured)
	if _, ok := subObj.(runtime.Unstructured); unstr && !ok {
		return fmt.Errorf("unstructured client did not understand object: %T", subObj)
	}
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	k := r.key(obj.GetNamespace(), obj.GetName())
	e, live, err := s.c.readLive(r, v, k)
	if err != nil {
		return err
	}
	switch s.sub {
	case "scale":
		if e == nil {
			return s.notFound(r, obj.GetName())
		}
		res := v.Scale(live)
		if res.Err != nil {
			return res.Err
		}
		return decodeKeepKind(withServerFields(res.Object, live), subObj, unstr)
	case "status":
		if e == nil {
			return s.notFound(r, obj.GetName())
		}
		return decodeInto(live, subObj)
	}
	return apierrors.NewNotFound(r.gr, obj.GetName())
}

// withServerFields sets the Scale's uid, resourceVersion and
// creationTimestamp from the object's.
func withServerFields(scale, obj map[string]any) map[string]any {
	md, omd := metadata(scale), metadata(obj)
	for _, f := range [...]string{"uid", "resourceVersion", "creationTimestamp"} {
		if x, ok := omd[f]; ok {
			md[f] = x
		}
	}
	return scale
}

// Create implements client.SubResourceWriter; custom resources have no
// subresource that takes a POST.
func (s *subClient) Create(ctx context.Context, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
	r, _, _, err := s.c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return s.c.delegate.SubResource(s.sub).Create(ctx, obj, subObj, opts...)
	}
	return apierrors.NewMethodNotSupported(r.gr, "create")
}

// Update implements client.SubResourceWriter: PUT of /status or /scale.
func (s *subClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	r, v, gvk, err := s.c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return s.c.delegate.SubResource(s.sub).Update(ctx, obj, opts...)
	}
	if err := r.checkNamespace(obj.GetNamespace(), false); err != nil {
		return err
	}
	o := (&client.SubResourceUpdateOptions{}).ApplyOptions(opts)
	uo := crdkit.UpdateOptions{FieldValidation: crdkit.FieldValidation(o.FieldValidation), ManagedFields: s.c.managed(o.FieldManager)}
	switch s.sub {
	case "status":
		return s.c.update(r, v, gvk, obj, "status", o.DryRun, uo)
	case "scale":
		body := client.Object(obj)
		if o.SubResourceBody != nil {
			body = o.SubResourceBody
		}
		// As controller-runtime's clients do: the body names the object.
		if body.GetName() == "" {
			body.SetName(obj.GetName())
		}
		if body.GetNamespace() == "" {
			body.SetNamespace(obj.GetNamespace())
		}
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		return s.c.scaleWrite(r, v, obj, body, isDryRun(o.DryRun), uo, func(live map[string]any) crdkit.Result {
			return v.UpdateScaleJSON(data, live, uo)
		})
	}
	return apierrors.NewNotFound(r.gr, obj.GetName())
}

// Patch implements client.SubResourceWriter: PATCH of /status or /scale.
func (s *subClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	r, v, _, err := s.c.objTarget(obj)
	if err != nil {
		return err
	}
	if r == nil {
		return s.c.delegate.SubResource(s.sub).Patch(ctx, obj, patch, opts...)
	}
	o := (&client.SubResourcePatchOptions{}).ApplyOptions(opts)
	switch s.sub {
	case "status":
		return s.c.patch(r, v, obj, patch, "status", &o.PatchOptions)
	case "scale":
		if patch == nil {
			return errNilObject
		}
		body := client.Object(obj)
		if o.SubResourceBody != nil {
			body = o.SubResourceBody
		}
		data, err := patch.Data(body)
		if err != nil {
			return err
		}
		uo := crdkit.UpdateOptions{FieldValidation: crdkit.FieldValidation(o.FieldValidation), ManagedFields: s.c.managed(o.FieldManager)}
		return s.c.scaleWrite(r, v, obj, body, isDryRun(o.DryRun), uo, func(live map[string]any) crdkit.Result {
			if patch.Type() == types.ApplyPatchType {
				// A server-side apply of the Scale: force counts.
				po := crdkit.PatchOptions{FieldValidation: uo.FieldValidation, ManagedFields: uo.ManagedFields, Force: o.Force != nil && *o.Force}
				return v.ApplyScale(data, live, po)
			}
			return v.PatchScale(crdkit.PatchType(patch.Type()), data, live, uo)
		})
	}
	return apierrors.NewNotFound(r.gr, obj.GetName())
}

// Apply implements client.SubResourceWriter: an apply to /status.
func (s *subClient) Apply(ctx context.Context, ac runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	o := (&client.SubResourceApplyOptions{}).ApplyOpts(opts)
	body := ac
	if o.SubResourceBody != nil {
		body = o.SubResourceBody
	}
	return s.c.apply(ctx, body, s.sub, []client.ApplyOption{&o.ApplyOptions})
}

// scaleWrite runs a write of the scale subresource, then stores the
// object as the write left it (Result.Parent: the new replica count and
// the managed fields entry of the Scale's manager) and decodes the Scale
// into into.
func (c *Client) scaleWrite(r *resource, v *crdkit.Version, obj client.Object, into runtime.Object, dry bool, uo crdkit.UpdateOptions, write func(live map[string]any) crdkit.Result) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := r.key(obj.GetNamespace(), obj.GetName())
	e, live, err := c.readLive(r, v, k)
	if err != nil {
		return err
	}
	if e == nil {
		return apierrors.NewNotFound(r.gr, obj.GetName())
	}
	res := write(live)
	if res.Err != nil {
		return res.Err
	}
	ne, err := c.put(r, k, res.Parent, e, dry)
	if err != nil {
		return err
	}
	md := metadata(res.Object)
	omd := metadata(ne.obj)
	md["uid"], md["creationTimestamp"] = omd["uid"], omd["creationTimestamp"]
	if ne.rv != 0 {
		md["resourceVersion"] = strconv.FormatInt(ne.rv, 10)
	}
	_, unstr := obj.(runtime.Unstructured)
	return decodeKeepKind(res.Object, into, unstr)
}
