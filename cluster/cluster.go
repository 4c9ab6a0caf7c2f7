// Package cluster groups items connected by pairs: union-find and connected components.
//
// STUB: contract only; the implementation replaces the bodies.
package cluster

// UnionFind is a disjoint-set forest over 0..n-1 with path compression and
// union by size. It is not safe for concurrent use.
type UnionFind struct{}

// NewUnionFind returns n singletons.
func NewUnionFind(n int) *UnionFind { panic("unimplemented") }

// Find returns the root of x's set.
func (u *UnionFind) Find(x uint32) uint32 { panic("unimplemented") }

// Union merges the sets of a and b and reports whether they were apart.
func (u *UnionFind) Union(a, b uint32) bool { panic("unimplemented") }

// Components returns the sets with at least minSize members, each sorted
// ascending, ordered by their smallest member. The result is the same
// whatever order the unions were made in.
func (u *UnionFind) Components(minSize int) [][]uint32 { panic("unimplemented") }
