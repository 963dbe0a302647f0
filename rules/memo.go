package rules

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/crdkit/crdkit/schema"
)

// A Compiler compiles x-kubernetes-validations rules and remembers each
// compilation, so that a rule met again against a type of the same shape,
// in the same environment, is not compiled again: the CRD checks of a
// create or an update compile the rules of a node for the node itself and
// again for every default above it, CRDs repeat the same types with the
// same rules (the filters of Gateway API routes, the versions of one
// kind), and the revisions of a CRD keep most of their rules. What it
// returns is what the functions of the same names return. Every Compiler
// shares one process-wide memory of compilations (a compilation depends
// only on what its key holds), dropped whole when it reaches maxRules
// entries. It is safe for concurrent use.
type Compiler struct{ m *memo }

// memo is a memory of compilations.
type memo struct {
	mu    sync.Mutex
	rules map[ruleKey]memoRule
}

// maxRules bounds the compilations remembered (a compilation holds its
// checked expressions, its environment and, once used, its programs:
// about 30 KB with an environment of its own; 2048 of them, at most some
// 60 MB for small types).
const maxRules = 1 << 11

var processMemo = &memo{rules: map[ruleKey]memoRule{}}

// NewCompiler returns an empty Compiler.
func NewCompiler() *Compiler {
	return &Compiler{m: processMemo}
}

// Check is the package's Check, remembering compilations in c.
func (c *Compiler) Check(s *schema.Schema, base *field.Path, schemaErrs field.ErrorList, opts ...CheckOptions) field.ErrorList {
	return check(c, s, base, schemaErrs, opts...)
}

// CompileNode is the package's CompileNode, remembering compilations in c.
func (c *Compiler) CompileNode(s *schema.Schema, resourceRoot bool) (*Validator, error) {
	return compileNode(c, s, resourceRoot)
}

// declKey identifies the shape of a declaration: everything a rule's
// compilation and cost estimate read from it (names, CEL types, fields and
// whether they are required, element and key types, sizes).
type declKey [sha256.Size]byte

// envKey identifies a rule environment: the kind it extends, whether
// oldSelf is optional, and the shape of self's type as far as the
// environment sees it (keysOf): the names and CEL types of the type and of
// the types in it, and the names of their fields. The environment declares
// self and oldSelf by CEL type and resolves object types, their fields and
// the element types of maps and lists by name (the server's
// DeclTypeProvider: CEL types only), so sizes, required fields, enums and
// defaults, which only the cost estimate and the values read, do not make
// another environment: two nodes that differ only in those share one.
type envKey struct {
	decl     declKey
	optional bool
	kind     envKind
}

type ruleKey struct {
	decl            declKey
	rule, msg       string
	optional        bool
	ruleEnv, msgEnv envKind
}

// memoRule is a compiled rule without what depends on the node it was
// compiled for (its field path, its untracked programs' node).
type memoRule struct {
	cr       compiledRule
	env      *cel.Env
	ast, msg *cel.Ast
}

// keyBufs are keyOf's buffers; one larger than maxKeyBuf is not kept.
var keyBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxKeyBuf = 1 << 20

func keyOf(d *apiservercel.DeclType) declKey {
	k, _ := keysOf(d)
	return k
}

// keysOf returns keyOf(d) and the key of what a rule environment extended
// with self of type d depends on (envKey's shape), in one walk.
func keysOf(d *apiservercel.DeclType) (declKey, declKey) {
	// What identifies the shape is written as length-prefixed strings and
	// numbers into one buffer (reused), hashed once at the end; what the
	// environment depends on goes into a second buffer as well.
	bp, ep := keyBufs.Get().(*[]byte), keyBufs.Get().(*[]byte)
	b, e := (*bp)[:0], (*ep)[:0]
	defer func() {
		for _, x := range []struct {
			p *[]byte
			b []byte
		}{{bp, b}, {ep, e}} {
			if cap(x.b) <= maxKeyBuf {
				*x.p = x.b
				keyBufs.Put(x.p)
			}
		}
	}()
	var write func(d *apiservercel.DeclType, depth int)
	str := func(s string) {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	envStr := func(s string) {
		str(s)
		e = binary.LittleEndian.AppendUint64(e, uint64(len(s)))
		e = append(e, s...)
	}
	num := func(n int64) {
		b = binary.LittleEndian.AppendUint64(b, uint64(n))
	}
	envNum := func(n int64) {
		num(n)
		e = binary.LittleEndian.AppendUint64(e, uint64(n))
	}
	value := func(v ref.Val) {
		tag, s := valueKey(v)
		num(int64(tag))
		str(s)
	}
	write = func(d *apiservercel.DeclType, depth int) {
		if d == nil || depth > 10000 {
			envStr("<nil>")
			return
		}
		envStr(d.TypeName())
		if ct := d.CelType(); ct != nil {
			envStr(ct.String())
		} else {
			envStr("")
		}
		num(d.MaxElements)
		num(d.MinSerializedSize)
		if d.TypeParam {
			envNum(1)
		} else {
			envNum(0)
		}
		mk := make([]string, 0, len(d.Metadata))
		for k := range d.Metadata {
			mk = append(mk, k)
		}
		sort.Strings(mk)
		for _, k := range mk {
			str(k)
			str(d.Metadata[k])
		}
		fk := make([]string, 0, len(d.Fields))
		for k := range d.Fields {
			fk = append(fk, k)
		}
		sort.Strings(fk)
		envNum(int64(len(fk)))
		for _, k := range fk {
			f := d.Fields[k]
			envStr(k)
			envStr(f.Name)
			if f.Required {
				num(1)
			} else {
				num(0)
			}
			ev := f.EnumValues()
			num(int64(len(ev)))
			for _, e := range ev {
				value(e)
			}
			value(f.DefaultValue())
			write(f.Type, depth+1)
		}
		write(d.KeyType, depth+1)
		write(d.ElemType, depth+1)
	}
	write(d, 0)
	return sha256.Sum256(b), sha256.Sum256(e)
}

func (c *Compiler) lookup(k ruleKey) (memoRule, bool) {
	if c == nil {
		return memoRule{}, false
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	m, ok := c.m.rules[k]
	return m, ok
}

func (c *Compiler) store(k ruleKey, cr compiledRule) {
	if c == nil {
		return
	}
	m := memoRule{cr: cr}
	if cr.fast != nil {
		m.env, m.ast, m.msg = cr.fast.env, cr.fast.ast, cr.fast.msg
	}
	m.cr.fast, m.cr.fieldPath = nil, ""
	c.m.mu.Lock()
	if len(c.m.rules) >= maxRules {
		clear(c.m.rules)
	}
	c.m.rules[k] = m
	c.m.mu.Unlock()
}

// reuse is the remembered compilation of r for node n.
func (m memoRule) reuse(r schema.ValidationRule, n *node, decl *apiservercel.DeclType) compiledRule {
	cr := m.cr
	cr.rule = r
	if m.ast != nil {
		cr.fast = &lazyFast{env: m.env, ast: m.ast, msg: m.msg, decl: decl}
	}
	if r.FieldPath != "" && cr.prog != nil && cr.msgErr == nil { // as compileRule: only for a rule that compiled
		if p, _, err := resolveFieldPath(r.FieldPath, n); err == nil {
			cr.fieldPath = p.String()
		}
	}
	return cr
}

// keyNonce makes the keys of values valueKey cannot write unique.
var keyNonce atomic.Uint64

// valueKey writes a field's default or enum value by content (the JSON
// values of a schema; a type's zero value, which its type already
// determines, by its Go type): never by address, which another value may
// reuse later. A value it cannot write gets a key no other has. The tag
// says how the string is to be read (the Go type of the common scalars,
// else a text that starts with the Go type).
func valueKey(v ref.Val) (tag int, s string) {
	if v == nil {
		return 0, "<nil>"
	}
	switch x := v.Value().(type) {
	case *apiservercel.ObjectValue:
		return 1, ""
	case *apiservercel.MapValue:
		return 2, ""
	case *apiservercel.ListValue:
		return 3, ""
	case string:
		return 4, x
	case bool:
		return 5, strconv.FormatBool(x)
	case int64:
		return 6, strconv.FormatInt(x, 10)
	case uint64:
		return 7, strconv.FormatUint(x, 10)
	case float64:
		return 8, strconv.FormatFloat(x, 'g', -1, 64)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return 9, strconv.FormatUint(keyNonce.Add(1), 10)
		}
		return 10, fmt.Sprintf("%T %s", x, b)
	}
}
