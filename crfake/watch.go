package crfake

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdkit/crdkit"
)

// watcher is one Watch: the events of one resource, filtered by namespace
// and selectors, read at the watch's version, queued without bound so that
// a write never waits for a reader.
type watcher struct {
	c       *Client
	r       *resource
	v       *crdkit.Version
	ns      string
	sel     *crdkit.Selector
	newObj  func() runtime.Object
	ch      chan watch.Event
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []watch.Event
	stopped bool
	doneCh  chan struct{}
	once    sync.Once
}

// Watch implements client.WithWatch: the events of the writes after the
// list's resourceVersion (ListOptions.Raw), or, without one, ADDED for
// every object that exists (in key order) followed by the writes to come,
// as the server's watch cache sends them.
func (c *Client) Watch(ctx context.Context, list client.ObjectList, opts ...client.ListOption) (watch.Interface, error) {
	gvk, err := c.listGVK(list)
	if err != nil {
		return nil, err
	}
	r, v, err := c.target(gvk)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return c.delegate.Watch(ctx, list, opts...)
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	lo := o.AsListOptions()
	sel, err := v.Selector(crdkit.ListOptions{Namespace: o.Namespace, LabelSelector: lo.LabelSelector, FieldSelector: lo.FieldSelector})
	if err != nil {
		return nil, err
	}
	w := &watcher{c: c, r: r, v: v, ns: o.Namespace, sel: sel, ch: make(chan watch.Event), doneCh: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	if _, ok := list.(runtime.Unstructured); ok {
		w.newObj = func() runtime.Object {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			return u
		}
	} else {
		if _, err := c.scheme.New(gvk); err != nil {
			return nil, err
		}
		w.newObj = func() runtime.Object { o, _ := c.scheme.New(gvk); return o }
	}

	c.mu.Lock()
	var from int64 = -1
	if lo.ResourceVersion != "" && lo.ResourceVersion != "0" {
		from, err = strconv.ParseInt(lo.ResourceVersion, 10, 64)
		if err != nil || from < 0 {
			c.mu.Unlock()
			return nil, apierrors.NewBadRequest("invalid resource version: " + lo.ResourceVersion)
		}
	}
	if from < 0 {
		items, err := c.listLocked(r, v, lo, o.Namespace)
		if err != nil {
			c.mu.Unlock()
			return nil, err
		}
		for _, it := range items {
			w.push(watch.Added, it.obj)
		}
	} else {
		if len(c.history) > 0 && c.history[0].obj.rv > from+1 && c.historyDropped {
			c.mu.Unlock()
			return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, c.history[0].obj.rv-1))
		}
		for _, ev := range c.history {
			if ev.obj.rv > from && ev.r == r {
				w.send(ev)
			}
		}
	}
	if c.watchers == nil {
		c.watchers = map[*watcher]struct{}{}
	}
	c.watchers[w] = struct{}{}
	c.mu.Unlock()

	go w.run()
	go func() {
		select {
		case <-ctx.Done():
			w.Stop()
		case <-w.done():
		}
	}()
	return w, nil
}

// maxHistory bounds the events kept for watches from a resourceVersion.
var maxHistory = 10000

// emit records an event and queues it for the watchers; c.mu is held.
func (c *Client) emit(ev event) {
	if len(c.history) >= maxHistory {
		// Keep the newer half; a watch from before it is told its
		// resourceVersion is too old (410), as the server's watch cache
		// tells it.
		c.history = append(c.history[:0:0], c.history[len(c.history)/2:]...)
		c.historyDropped = true
	}
	c.history = append(c.history, ev)
	for w := range c.watchers {
		if w.r == ev.r {
			w.send(ev)
		}
	}
}

// send queues the event as the watch sees it: an object that leaves the
// watch's selection is DELETED for it, one that enters it ADDED.
func (w *watcher) send(ev event) {
	now, err := read(w.v, ev.obj)
	if err != nil {
		w.push(watch.Error, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": err.Error()})
		return
	}
	in := w.matches(now)
	switch ev.typ {
	case watch.Added, watch.Deleted:
		if in {
			w.push(ev.typ, now)
		}
	case watch.Modified:
		wasIn := false
		if ev.old != nil {
			if old, err := read(w.v, ev.old); err == nil {
				wasIn = w.matches(old)
			}
		}
		switch {
		case in && wasIn:
			w.push(watch.Modified, now)
		case in:
			w.push(watch.Added, now)
		case wasIn:
			w.push(watch.Deleted, now)
		}
	}
}

func (w *watcher) matches(obj map[string]any) bool {
	if w.ns != "" && w.r.namespaced && md2ns(obj) != w.ns {
		return false
	}
	return w.sel.Matches(obj)
}

func (w *watcher) push(typ watch.EventType, obj map[string]any) {
	var o runtime.Object
	if typ == watch.Error {
		u := &unstructured.Unstructured{Object: obj}
		o = u
	} else {
		o = w.newObj()
		if err := decodeInto(obj, o); err != nil {
			typ, o = watch.Error, &unstructured.Unstructured{Object: map[string]any{"kind": "Status", "apiVersion": "v1", "message": err.Error()}}
		}
		if u, ok := o.(*unstructured.Unstructured); ok && u.GetKind() == "" {
			u.SetGroupVersionKind(schema.GroupVersionKind{Group: w.r.gk.Group, Version: w.v.Name(), Kind: w.r.gk.Kind})
		}
	}
	w.mu.Lock()
	w.queue = append(w.queue, watch.Event{Type: typ, Object: o})
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *watcher) run() {
	defer close(w.ch)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		ev := w.queue[0]
		w.queue = w.queue[1:]
		w.mu.Unlock()
		select {
		case w.ch <- ev:
		case <-w.done():
			return
		}
	}
}

// done returns a channel closed once the watch is stopped.
func (w *watcher) done() <-chan struct{} { return w.doneCh }

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.ch }

// Stop implements watch.Interface.
func (w *watcher) Stop() {
	w.once.Do(func() {
		w.c.mu.Lock()
		delete(w.c.watchers, w)
		w.c.mu.Unlock()
		w.mu.Lock()
		w.stopped = true
		close(w.doneCh)
		w.mu.Unlock()
		w.cond.Broadcast()
	})
}
