// Package rules evaluates and checks the x-kubernetes-validations rules (CEL
// expressions) of a CRD schema exactly as the Kubernetes API server
// (k8s.io/apiextensions-apiserver v0.37) does: same environment, same type
// declarations, same cost accounting, same errors.
//
// Compile prepares every rule of one compiled schema (package schema) for
// evaluation; Validator.Validate runs them on an object on create;
// Validator.ValidateUpdate runs them on an update, given the old object,
// with transition rules and ratcheting; Check
// reports what the server's CRD validation says about the rules when the CRD
// is created; CompileNode and Validator.ValidateDefault check a default
// value against the rules of its schema node, as the server's CRD validation
// does.
//
// # Terminology
//
// A rule is one x-kubernetes-validations entry: a CEL expression (rule) that
// must be true of the value at its schema node (self), with an optional
// message or messageExpression, reason, fieldPath and optionalOldSelf. A
// resource root is the root of the object or of an x-kubernetes-embedded-resource
// value; there self also has apiVersion, kind and metadata.name and
// metadata.generateName, whatever the schema declares. Cost is CEL's measure
// of work: estimated statically from the schema's bounds (maxItems,
// maxProperties, maxLength, or the 3 MiB request size when absent) when the
// CRD is checked, and counted while a rule runs.
//
// # Environment
//
// Rules compile in the server's base environment for its default
// compatibility version (k8s.io/apiserver/pkg/cel/environment): the CEL
// standard library, optional types, two-variable comprehensions, cross-type
// numeric comparisons and the Kubernetes libraries (URLs, regex, lists,
// quantity, IP, CIDR, format, semver, sets, strings, authz and the rest).
// Compile uses the stored-expressions environment, as the server does for
// rules already part of a CRD; Check uses the new-expressions environment, as
// the server does for a CRD being created. The type of self comes from the
// schema through the server's own mapping (k8s.io/apiserver/pkg/cel/common),
// to which this package presents crdkit's compiled schema directly. Values
// are handed to CEL lazily, so an object is never converted as a whole, by
// a converter that behaves as the server's UnstructuredToVal method for
// method (same value types, equality, iteration and errors; scalars and the
// list concatenations are the server's own code) but uses field names
// escaped and unescaped once per schema node, where the server runs a
// regular expression on every field access.
//
// # Evaluation
//
// Validate walks the object along the nodes that hold rules, as the server
// does: the rules of a node in order, then allOf, then list items or object
// properties. Null values are never validated. Rules that use oldSelf run on
// create only when they set optionalOldSelf. Each evaluation may cost at
// most PerCallLimit; all evaluations of a request share a budget (the server
// uses RuntimeBudget); when a limit is reached, evaluation stops with the
// server's error and a negative remaining budget.
//
// # Errors
//
// Validate returns a field.ErrorList with the server's paths, types and texts:
// the rule's message, its messageExpression's result (trimmed, at most
// MaxMessageExpressionBytes, one line) or "failed rule: <rule>"; reason
// chooses Forbidden, Required or Duplicate instead of Invalid; fieldPath
// moves the error to a child path; the value of an error at an object or
// list is omitted. Runtime errors ("no such key", overflow, conversion
// errors…) and limit errors carry the server's wording. Where the server
// iterates a Go map (an object's properties), crdkit iterates in sorted key
// order, so the order of errors is deterministic; the set is the server's.
//
// # Updates
//
// ValidateUpdate(obj, old, budget) is the CEL step of the server's update
// (the strategy's ValidateUpdate with CRD validation ratcheting, GA in
// v0.37): it returns the errors, the warnings and the budget left. Old
// values correlate with new ones for rules as in the server's CEL validator
// (object properties and additionalProperties by key, items of
// x-kubernetes-list-type=map lists by their keys, never items of atomic or
// set lists): transition rules (rules that use oldSelf) run only where an
// old value correlates, optionalOldSelf rules run everywhere and see
// optional.none() where none does. Ratcheting correlates as the server's
// CorrelatedObject does: a failing rule that does not use oldSelf, on a
// value equal to its correlated old value (or, where the value does not
// correlate, for example an item of an atomic list, whose nearest
// correlating ancestor is unchanged), reports its error as a warning (the
// error's text, as the server's warning.AddWarning records it) instead of an
// error. The server's quirks are kept: rules reached through allOf ratchet by
// the node's parent only; the resource's apiVersion and kind never ratchet;
// an object holding a field the schema does not declare (preserved unknown
// fields) never equals its old value; compile, runtime, cost and budget
// errors are never ratcheted. Warnings come in the order the rules ran
// (properties in sorted order, as for errors).
//
// # Evaluation without cost tracking
//
// The server evaluates every rule under cel-go's cost tracker, which stops an
// evaluation past PerCallLimit and charges its cost to the request's budget;
// tracking is about half of the evaluation time. ValidateUntracked(ctx, obj,
// old, budget) gives the errors and warnings of Validate (old nil) or
// ValidateUpdate, without the budget left, skipping the tracker where that
// cannot change them. Each rule and messageExpression has a second program,
// planned (on first use) by the same environment with the same options minus
// the cost observer, and a bound: its static cost estimate over values of
// any size when that is at most PerCallLimit (the cost does not grow with
// the values), else its estimate over the sizes the rule's CEL type declares
// (the server's estimate, except that map keys and objects count as a whole
// request and nothing as less than 1, where the server's estimator takes 0).
// That second bound holds for values of those sizes: strings and
// int-or-string values of at most 4 bytes per maxLength code point (or the
// longest enum value, or a request), lists and maps of at most maxItems or
// maxProperties entries (or what fits in a request), values of the declared
// types. ValidateUntracked checks that once per subtree, at the topmost node
// with a rule whose bound needs it, on the value and on the old value (a
// property whose name CEL cannot escape has a type of its own, checked on
// its own), and then evaluates a rule untracked when its bound fits in what
// is left of the budget, charging the bound; rules without a bound within
// PerCallLimit are evaluated tracked and charged their cost. Since each bound is at least the tracked cost, no limit
// the tracked path would reach can be reached. When a value is larger than
// its type says, or a bound (or a tracked cost) would not fit in the budget
// left, what was found is thrown away and the whole call is evaluated
// tracked, which reports exactly what Validate does, budget errors included.
// Evaluation is otherwise the same (errors, messages, ratcheting, context
// cancellation). crdkit's create, update and admission use it; Validate and
// ValidateUpdate, which report the budget left, always track.
//
// # Native evaluation
//
// Within ValidateUntracked, a rule evaluated untracked may also have a native
// program (native.go): the rule's checked expression compiled, when every
// part of it is of the common shapes, to Go code that evaluates directly on
// the object's maps, lists, strings, integers and booleans, typed by the
// schema nodes the server's values are converted with. The shapes: self and
// (in transition rules without optionalOldSelf) oldSelf, field selections on
// objects and maps (escaped names unescaped as the server's values do),
// has(), string, integer and boolean literals and lists of them, == and != on
// strings, integers and booleans, <, <=, >, >= on integers, strings and
// durations, &&, ||, !, ?:, size() of strings (code points), lists and maps,
// in on lists and maps, startsWith, endsWith, contains, matches with a
// constant pattern (Go's regexp, as cel-go), lowerAscii() and substring() (on
// valid UTF-8), duration() of a string, integer +
// and - (an overflow is cel-go's error), list and map indexes, and the
// comprehension macros (all, exists, exists_one, filter, map) as cel-go's
// fold; values of other schema types (numbers, int-or-string, embedded
// resources, strings of the duration, date, date-time and byte formats,
// preserved unknown values) are not compiled, nor is anything else. Each
// part evaluates to a value or to "not sure": an absent field, a null, a Go
// value of another type than the schema's, an overflow, an index out of
// range; && and || decide as cel-go does when one side is sure and decides.
// When the native program is sure the rule holds, the rule passed (charged
// its bound, as untracked evaluation charges); in every other case, or under
// a context already cancelled, cel-go's untracked program evaluates it as
// before, so every failure, message and error text is cel-go's. The size()
// of a filter() counts the elements the predicate keeps without building
// the list. A panic in a native program (a bug, never expected) is
// recovered once per call, not per rule: what the fast walk found is thrown
// away and the call evaluates everything again on the tracked path, with
// cel-go alone.
//
// # Where the server runs them
//
// On create, after OpenAPI, embedded-resource and list-type validation, and
// only when none of those reported an error of a blocking type (NotSupported,
// Required, TooLong, TooMany, TypeInvalid): Validate(obj, RuntimeBudget).
// On update, the same with ValidateUpdate(obj, old, RuntimeBudget), after the
// ratcheted OpenAPI validation and the list-type validation (counted only
// when old has no list-type errors). On
// CRD create: ValidateDefault for each default (with the other default
// checks), then, when the schema is structural and its defaults valid,
// Check with the errors found so far.
//
// # Concurrency
//
// A Validator is immutable after Compile and safe for concurrent use by any
// number of goroutines; Validate allocates its per-call state. Check has no
// shared state but three process-wide caches, each safe for concurrent use
// and dropped whole at its bound: cel-go's parse of each expression text
// (per environment kind; crdkit's own parser gives it for the common CEL,
// cel-go's for the rest), the rule environment of each type shape, and
// (for a Compiler, as package definition uses) each compilation of a rule
// against a type shape. Each holds what the server would compute again,
// never anything that depends on the call; DropCaches empties them (and
// package schema's cache of compiled patterns).
//
// # Security
//
// Rules are code supplied by the CRD author and objects are supplied by API
// clients. Every evaluation is bounded by the server's cost limits (CEL
// interrupts a comprehension every 100 iterations to check them), and
// ValidateContext stops when its context is done. ValidateUntracked's
// untracked evaluations are bounded by their static estimates (at most
// PerCallLimit each, at most the budget together) on values it has checked
// have the sizes those assume, and stop with the context too. Check refuses, as the
// server does, rules whose estimated cost over the largest object the schema
// allows exceeds ExpressionCostLimit, or whose total exceeds SchemaCostLimit;
// crdkit evaluates such rules with the same runtime limits if asked to.
// Schemas are depth-bounded by package schema.
package rules
