package oracle

import (
	"context"
	"fmt"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// StoredKey is the storage key of the custom object name (in namespace,
// for a namespaced CRD) of the installed CRD crd, as the server names it
// in its errors: the etcd key without the server's etcd prefix.
func (s *Server) StoredKey(crd, namespace, name string) (string, error) {
	s.mu.RLock()
	c := s.crds[crd]
	s.mu.RUnlock()
	if c == nil {
		return "", fmt.Errorf("oracle: CRD %s not installed through this server", crd)
	}
	key := "/" + c.Spec.Group + "/" + c.Spec.Names.Plural + "/"
	if c.Spec.Scope == "Namespaced" {
		key += namespace + "/"
	}
	return key + name, nil
}

// PutStored writes data into etcd as the stored form of a custom object,
// bypassing the server (no decoding, validation or conversion): what a
// backup restore or an old server version leaves there. It returns the key
// (StoredKey) and the write's revision (the object's resourceVersion).
func (s *Server) PutStored(ctx context.Context, crd, namespace, name string, data []byte) (string, int64, error) {
	key, err := s.StoredKey(crd, namespace, name)
	if err != nil {
		return "", 0, err
	}
	resp, err := s.etcd.Server.Put(ctx, &pb.PutRequest{Key: []byte(s.etcdPrefix + key), Value: data})
	if err != nil {
		return "", 0, err
	}
	return key, resp.Header.Revision, nil
}

// GetStored returns what etcd holds for a custom object (nil when nothing)
// and its modification revision.
func (s *Server) GetStored(ctx context.Context, crd, namespace, name string) ([]byte, int64, error) {
	key, err := s.StoredKey(crd, namespace, name)
	if err != nil {
		return nil, 0, err
	}
	resp, err := s.etcd.Server.Range(ctx, &pb.RangeRequest{Key: []byte(s.etcdPrefix + key)})
	if err != nil {
		return nil, 0, err
	}
	if len(resp.Kvs) == 0 {
		return nil, 0, nil
	}
	return resp.Kvs[0].Value, resp.Kvs[0].ModRevision, nil
}

// DeleteStored removes what etcd holds for a custom object, bypassing the
// server. Objects PutStored wrote that the server cannot decode must go
// before anything LISTs the resource: while one is there, the resource's
// watch cache cannot initialise and every LIST answers 429.
func (s *Server) DeleteStored(ctx context.Context, crd, namespace, name string) error {
	key, err := s.StoredKey(crd, namespace, name)
	if err != nil {
		return err
	}
	_, err = s.etcd.Server.DeleteRange(ctx, &pb.DeleteRangeRequest{Key: []byte(s.etcdPrefix + key)})
	return err
}

// crdKey is the storage key of a CRD (without the etcd prefix).
func crdKey(name string) string {
	return "/apiextensions.k8s.io/customresourcedefinitions/" + name
}

// GetStoredCRD returns what etcd holds for the CRD name (nil when nothing)
// and its modification revision.
func (s *Server) GetStoredCRD(ctx context.Context, name string) ([]byte, int64, error) {
	resp, err := s.etcd.Server.Range(ctx, &pb.RangeRequest{Key: []byte(s.etcdPrefix + crdKey(name))})
	if err != nil {
		return nil, 0, err
	}
	if len(resp.Kvs) == 0 {
		return nil, 0, nil
	}
	return resp.Kvs[0].Value, resp.Kvs[0].ModRevision, nil
}

// PutStoredCRD writes data into etcd as the stored form of the CRD name,
// bypassing the server's validation: how a CRD that an older server
// accepted and this one would refuse comes to be held. The server's
// controllers and watch cache see the write as any other. It returns the
// write's revision (the CRD's resourceVersion).
func (s *Server) PutStoredCRD(ctx context.Context, name string, data []byte) (int64, error) {
	resp, err := s.etcd.Server.Put(ctx, &pb.PutRequest{Key: []byte(s.etcdPrefix + crdKey(name)), Value: data})
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}
