package main

import (
	"errors"
	"fmt"
	"strings"
)

// Plan is what the reconciler wants to exist for one CronTab.
type Plan struct {
	// Schedule is the five cron fields; nil when the CronTab has no
	// cronSpec (it is then suspended).
	Schedule []string
	// Workers are the names of the workers to run, one per replica.
	Workers []string
	Image   string
}

// Reconcile computes the plan of a CronTab as the API server returns it
// (defaulted and validated: replicas is set and between 1 and 10, cronSpec
// when present has five fields).
func Reconcile(obj map[string]any) (*Plan, error) {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if name == "" {
		return nil, errors.New("no metadata.name")
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return nil, fmt.Errorf("%s: no spec", name)
	}
	p := &Plan{}
	p.Image, _ = spec["image"].(string)
	if cs, ok := spec["cronSpec"].(string); ok {
		p.Schedule = strings.Fields(cs)
		if len(p.Schedule) != 5 {
			return nil, fmt.Errorf("%s: cronSpec %q has %d fields", name, cs, len(p.Schedule))
		}
	}
	replicas, ok := spec["replicas"].(int64)
	if !ok {
		return nil, fmt.Errorf("%s: spec.replicas is %T, not an integer", name, spec["replicas"])
	}
	for i := int64(0); i < replicas; i++ {
		p.Workers = append(p.Workers, fmt.Sprintf("%s-worker-%d", name, i))
	}
	return p, nil
}
