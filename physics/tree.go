package physics

import "github.com/ByteArena/box2d"

// moveProxy is B2BroadPhase.MoveProxy: a proxy whose fat box no longer
// holds aabb is taken out of the broad phase's tree, given a new fat box
// (aabb grown by box2d's margin and stretched along twice displacement)
// and put back where box2d's cost puts it, and is buffered for the pair
// search. The same tree, node for node, as box2d's: its walks combine
// boxes through math.Min and math.Max, calls made for every node on the
// way down and up each time a moving body leaves its fat box; here they
// are flo and fhi, the same numbers.
func moveProxy(bp *box2d.B2BroadPhase, proxyID int, aabb box2d.B2AABB, displacement box2d.B2Vec2) {
	tree := &bp.M_tree
	fat := &tree.M_nodes[proxyID].Aabb
	if fat.LowerBound.X <= aabb.LowerBound.X && fat.LowerBound.Y <= aabb.LowerBound.Y &&
		aabb.UpperBound.X <= fat.UpperBound.X && aabb.UpperBound.Y <= fat.UpperBound.Y {
		return
	}

	removeLeaf(tree, proxyID)

	// Extend the box, and stretch it the way it moves.
	b := aabb
	b.LowerBound = box2d.B2Vec2{X: b.LowerBound.X - box2d.B2_aabbExtension, Y: b.LowerBound.Y - box2d.B2_aabbExtension}
	b.UpperBound = box2d.B2Vec2{X: b.UpperBound.X + box2d.B2_aabbExtension, Y: b.UpperBound.Y + box2d.B2_aabbExtension}
	dx, dy := box2d.B2_aabbMultiplier*displacement.X, box2d.B2_aabbMultiplier*displacement.Y
	if dx < 0.0 {
		b.LowerBound.X += dx
	} else {
		b.UpperBound.X += dx
	}
	if dy < 0.0 {
		b.LowerBound.Y += dy
	} else {
		b.UpperBound.Y += dy
	}
	tree.M_nodes[proxyID].Aabb = b

	insertLeaf(tree, proxyID)
	bp.BufferMove(proxyID)
}

// combined is B2AABB.CombineTwoInPlace's box of a and b.
func combined(a, b *box2d.B2AABB) box2d.B2AABB {
	return box2d.B2AABB{
		LowerBound: box2d.B2Vec2{X: flo(a.LowerBound.X, b.LowerBound.X), Y: flo(a.LowerBound.Y, b.LowerBound.Y)},
		UpperBound: box2d.B2Vec2{X: fhi(a.UpperBound.X, b.UpperBound.X), Y: fhi(a.UpperBound.Y, b.UpperBound.Y)},
	}
}

// overlaps is box2d.B2TestOverlapBoundingBoxes(*a, *b), the same
// subtractions and comparisons, without copying the two boxes into a
// call: the pair search and the contact update test a box at every node
// they walk.
func overlaps(a, b *box2d.B2AABB) bool {
	if b.LowerBound.X-a.UpperBound.X > 0.0 || b.LowerBound.Y-a.UpperBound.Y > 0.0 {
		return false
	}
	if a.LowerBound.X-b.UpperBound.X > 0.0 || a.LowerBound.Y-b.UpperBound.Y > 0.0 {
		return false
	}
	return true
}

// perimeter is B2AABB.GetPerimeter.
func perimeter(b *box2d.B2AABB) float64 {
	wx := b.UpperBound.X - b.LowerBound.X
	wy := b.UpperBound.Y - b.LowerBound.Y
	return 2.0 * (wx + wy)
}

// insertLeaf is B2DynamicTree.InsertLeaf.
func insertLeaf(tree *box2d.B2DynamicTree, leaf int) {
	tree.M_insertionCount++
	if tree.M_root == box2d.B2_nullNode {
		tree.M_root = leaf
		tree.M_nodes[leaf].Parent = box2d.B2_nullNode
		return
	}

	// Find the best sibling for this node.
	leafAABB := tree.M_nodes[leaf].Aabb
	index := tree.M_root
	for {
		node := &tree.M_nodes[index]
		if node.Child1 == box2d.B2_nullNode {
			break
		}
		child1, child2 := node.Child1, node.Child2

		area := perimeter(&node.Aabb)
		all := combined(&node.Aabb, &leafAABB)
		combinedArea := perimeter(&all)

		// Cost of creating a new parent for this node and the new leaf,
		// and the least cost of pushing the leaf further down.
		cost := 2.0 * combinedArea
		inheritanceCost := 2.0 * (combinedArea - area)

		// Cost of descending into each child.
		cost1 := descentCost(&tree.M_nodes[child1], &leafAABB, inheritanceCost)
		cost2 := descentCost(&tree.M_nodes[child2], &leafAABB, inheritanceCost)

		if cost < cost1 && cost < cost2 {
			break
		}
		if cost1 < cost2 {
			index = child1
		} else {
			index = child2
		}
	}
	sibling := index

	// A new parent for the sibling and the leaf.
	oldParent := tree.M_nodes[sibling].Parent
	newParent := tree.AllocateNode() // may move the nodes
	nodes := tree.M_nodes
	np := &nodes[newParent]
	np.Parent = oldParent
	np.UserData = nil
	np.Aabb = combined(&leafAABB, &nodes[sibling].Aabb)
	np.Height = nodes[sibling].Height + 1
	if oldParent != box2d.B2_nullNode {
		// The sibling was not the root.
		if nodes[oldParent].Child1 == sibling {
			nodes[oldParent].Child1 = newParent
		} else {
			nodes[oldParent].Child2 = newParent
		}
	} else {
		tree.M_root = newParent
	}
	np.Child1 = sibling
	np.Child2 = leaf
	nodes[sibling].Parent = newParent
	nodes[leaf].Parent = newParent

	// Walk back up the tree fixing heights and boxes.
	index = nodes[leaf].Parent
	for index != box2d.B2_nullNode {
		index = balance(tree, index)
		n := &nodes[index]
		c1, c2 := &nodes[n.Child1], &nodes[n.Child2]
		n.Height = 1 + max(c1.Height, c2.Height)
		n.Aabb = combined(&c1.Aabb, &c2.Aabb)
		index = n.Parent
	}
}

// descentCost is insertLeaf's cost of descending into child with leafAABB.
func descentCost(child *box2d.B2TreeNode, leafAABB *box2d.B2AABB, inheritanceCost float64) float64 {
	aabb := combined(leafAABB, &child.Aabb)
	if child.Child1 == box2d.B2_nullNode {
		return perimeter(&aabb) + inheritanceCost
	}
	oldArea := perimeter(&child.Aabb)
	newArea := perimeter(&aabb)
	return (newArea - oldArea) + inheritanceCost
}

// removeLeaf is B2DynamicTree.RemoveLeaf.
func removeLeaf(tree *box2d.B2DynamicTree, leaf int) {
	if leaf == tree.M_root {
		tree.M_root = box2d.B2_nullNode
		return
	}
	nodes := tree.M_nodes
	parent := nodes[leaf].Parent
	grandParent := nodes[parent].Parent
	sibling := nodes[parent].Child1
	if sibling == leaf {
		sibling = nodes[parent].Child2
	}
	if grandParent == box2d.B2_nullNode {
		tree.M_root = sibling
		nodes[sibling].Parent = box2d.B2_nullNode
		tree.FreeNode(parent)
		return
	}

	// Destroy the parent and connect the sibling to the grandparent.
	if nodes[grandParent].Child1 == parent {
		nodes[grandParent].Child1 = sibling
	} else {
		nodes[grandParent].Child2 = sibling
	}
	nodes[sibling].Parent = grandParent
	tree.FreeNode(parent)

	// Adjust the ancestors' boxes.
	index := grandParent
	for index != box2d.B2_nullNode {
		index = balance(tree, index)
		n := &nodes[index]
		c1, c2 := &nodes[n.Child1], &nodes[n.Child2]
		n.Aabb = combined(&c1.Aabb, &c2.Aabb)
		n.Height = 1 + max(c1.Height, c2.Height)
		index = n.Parent
	}
}

// balance is B2DynamicTree.Balance: a left or right rotation at iA if it
// is out of balance; the index of the subtree's root after.
func balance(tree *box2d.B2DynamicTree, iA int) int {
	nodes := tree.M_nodes
	A := &nodes[iA]
	if A.Child1 == box2d.B2_nullNode || A.Height < 2 {
		return iA
	}
	iB, iC := A.Child1, A.Child2
	B, C := &nodes[iB], &nodes[iC]
	bal := C.Height - B.Height

	switch {
	case bal > 1: // rotate C up
		iF, iG := C.Child1, C.Child2
		F, G := &nodes[iF], &nodes[iG]

		// Swap A and C.
		C.Child1 = iA
		C.Parent = A.Parent
		A.Parent = iC

		// A's old parent should point to C.
		if C.Parent != box2d.B2_nullNode {
			if nodes[C.Parent].Child1 == iA {
				nodes[C.Parent].Child1 = iC
			} else {
				nodes[C.Parent].Child2 = iC
			}
		} else {
			tree.M_root = iC
		}

		if F.Height > G.Height {
			C.Child2 = iF
			A.Child2 = iG
			G.Parent = iA
			A.Aabb = combined(&B.Aabb, &G.Aabb)
			C.Aabb = combined(&A.Aabb, &F.Aabb)
			A.Height = 1 + max(B.Height, G.Height)
			C.Height = 1 + max(A.Height, F.Height)
		} else {
			C.Child2 = iG
			A.Child2 = iF
			F.Parent = iA
			A.Aabb = combined(&B.Aabb, &F.Aabb)
			C.Aabb = combined(&A.Aabb, &G.Aabb)
			A.Height = 1 + max(B.Height, F.Height)
			C.Height = 1 + max(A.Height, G.Height)
		}
		return iC

	case bal < -1: // rotate B up
		iD, iE := B.Child1, B.Child2
		D, E := &nodes[iD], &nodes[iE]

		// Swap A and B.
		B.Child1 = iA
		B.Parent = A.Parent
		A.Parent = iB

		// A's old parent should point to B.
		if B.Parent != box2d.B2_nullNode {
			if nodes[B.Parent].Child1 == iA {
				nodes[B.Parent].Child1 = iB
			} else {
				nodes[B.Parent].Child2 = iB
			}
		} else {
			tree.M_root = iB
		}

		if D.Height > E.Height {
			B.Child2 = iD
			A.Child1 = iE
			E.Parent = iA
			A.Aabb = combined(&C.Aabb, &E.Aabb)
			B.Aabb = combined(&A.Aabb, &D.Aabb)
			A.Height = 1 + max(C.Height, E.Height)
			B.Height = 1 + max(A.Height, D.Height)
		} else {
			B.Child2 = iE
			A.Child1 = iD
			D.Parent = iA
			A.Aabb = combined(&C.Aabb, &D.Aabb)
			B.Aabb = combined(&A.Aabb, &E.Aabb)
			A.Height = 1 + max(C.Height, D.Height)
			B.Height = 1 + max(A.Height, E.Height)
		}
		return iB
	}
	return iA
}
