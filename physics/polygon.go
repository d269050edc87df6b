package physics

import "github.com/ByteArena/box2d"

// collidePolygons is box2d's B2CollidePolygons (the manifold of two
// polygons: the separating axes of both, the reference face, the incident
// edge clipped to it), the same arithmetic in the same order, so to the
// same bits. box2d's copies each polygon's vertices and normals into
// locals in both of its two axis searches, and reaches it through the
// contact's Evaluate, whose getters copy the contact; the narrow phase
// runs it for every touching pair of boxes in every step.
func collidePolygons(manifold *box2d.B2Manifold, polyA *box2d.B2PolygonShape, xfA box2d.B2Transform, polyB *box2d.B2PolygonShape, xfB box2d.B2Transform) {
	manifold.PointCount = 0
	totalRadius := polyA.M_radius + polyB.M_radius

	edgeA, separationA := maxSeparation(polyA, &xfA, polyB, &xfB)
	if separationA > totalRadius {
		return
	}
	edgeB, separationB := maxSeparation(polyB, &xfB, polyA, &xfA)
	if separationB > totalRadius {
		return
	}

	var poly1, poly2 *box2d.B2PolygonShape // reference and incident polygons
	var xf1, xf2 box2d.B2Transform
	var edge1 int // reference edge
	var flip bool
	const tol = 0.1 * box2d.B2_linearSlop
	if separationB > separationA+tol {
		poly1, poly2 = polyB, polyA
		xf1, xf2 = xfB, xfA
		edge1 = edgeB
		manifold.Type = box2d.B2Manifold_Type.E_faceB
		flip = true
	} else {
		poly1, poly2 = polyA, polyB
		xf1, xf2 = xfA, xfB
		edge1 = edgeA
		manifold.Type = box2d.B2Manifold_Type.E_faceA
	}

	var incident [2]box2d.B2ClipVertex
	incidentEdge(&incident, poly1, &xf1, edge1, poly2, &xf2)

	count1 := poly1.M_count
	iv1 := edge1
	iv2 := 0
	if edge1+1 < count1 {
		iv2 = edge1 + 1
	}
	v11 := poly1.M_vertices[iv1]
	v12 := poly1.M_vertices[iv2]

	localTangent := box2d.B2Vec2Sub(v12, v11)
	localTangent.Normalize()

	localNormal := box2d.B2Vec2CrossVectorScalar(localTangent, 1.0)
	planePoint := box2d.B2Vec2MulScalar(0.5, box2d.B2Vec2Add(v11, v12))

	tangent := box2d.B2RotVec2Mul(xf1.Q, localTangent)
	normal := box2d.B2Vec2CrossVectorScalar(tangent, 1.0)

	v11 = box2d.B2TransformVec2Mul(xf1, v11)
	v12 = box2d.B2TransformVec2Mul(xf1, v12)

	// Face offset.
	frontOffset := box2d.B2Vec2Dot(normal, v11)

	// Side offsets, extended by polytope skin thickness.
	sideOffset1 := -box2d.B2Vec2Dot(tangent, v11) + totalRadius
	sideOffset2 := box2d.B2Vec2Dot(tangent, v12) + totalRadius

	// Clip the incident edge against the reference edge's sides.
	var clip1, clip2 [2]box2d.B2ClipVertex
	if clipSegment(&clip1, &incident, tangent.OperatorNegate(), sideOffset1, iv1) < 2 {
		return
	}
	if clipSegment(&clip2, &clip1, tangent, sideOffset2, iv2) < 2 {
		return
	}

	manifold.LocalNormal = localNormal
	manifold.LocalPoint = planePoint

	pointCount := 0
	for i := range box2d.B2_maxManifoldPoints {
		separation := box2d.B2Vec2Dot(normal, clip2[i].V) - frontOffset
		if separation <= totalRadius {
			cp := &manifold.Points[pointCount]
			cp.LocalPoint = box2d.B2TransformVec2MulT(xf2, clip2[i].V)
			cp.Id = clip2[i].Id
			if flip {
				cf := cp.Id
				cp.Id.IndexA = cf.IndexB
				cp.Id.IndexB = cf.IndexA
				cp.Id.TypeA = cf.TypeB
				cp.Id.TypeB = cf.TypeA
			}
			pointCount++
		}
	}
	manifold.PointCount = pointCount
}

// maxSeparation is B2FindMaxSeparation: the edge of poly1 whose normal
// shows poly2 furthest from it, and that separation.
func maxSeparation(poly1 *box2d.B2PolygonShape, xf1 *box2d.B2Transform, poly2 *box2d.B2PolygonShape, xf2 *box2d.B2Transform) (int, float64) {
	count1 := poly1.M_count
	count2 := poly2.M_count
	n1s := &poly1.M_normals
	v1s := &poly1.M_vertices
	v2s := poly2.M_vertices[:count2]

	// B2TransformMulT(xf2, xf1): poly1's frame in poly2's.
	qs := xf2.Q.C*xf1.Q.S - xf2.Q.S*xf1.Q.C
	qc := xf2.Q.C*xf1.Q.C + xf2.Q.S*xf1.Q.S
	dx := xf1.P.X - xf2.P.X
	dy := xf1.P.Y - xf2.P.Y
	px := xf2.Q.C*dx + xf2.Q.S*dy
	py := -xf2.Q.S*dx + xf2.Q.C*dy

	bestIndex := 0
	maxSeparation := -box2d.B2_maxFloat
	for i := range count1 {
		// poly1's normal and vertex i in poly2's frame.
		n1, v1 := n1s[i], v1s[i]
		nx := qc*n1.X - qs*n1.Y
		ny := qs*n1.X + qc*n1.Y
		vx := (qc*v1.X - qs*v1.Y) + px
		vy := (qs*v1.X + qc*v1.Y) + py

		// The deepest point of poly2 along it. The search only goes down:
		// once it is no higher than the best so far, edge i cannot be
		// chosen and the rest of it would change nothing.
		si := box2d.B2_maxFloat
		for _, v2 := range v2s {
			if sij := nx*(v2.X-vx) + ny*(v2.Y-vy); sij < si {
				si = sij
				if si <= maxSeparation {
					break
				}
			}
		}
		if si > maxSeparation {
			maxSeparation = si
			bestIndex = i
		}
	}
	return bestIndex, maxSeparation
}

// incidentEdge is B2FindIncidentEdge: the edge of poly2 most against
// poly1's edge1, placed by xf2, as two clip vertices.
func incidentEdge(c *[2]box2d.B2ClipVertex, poly1 *box2d.B2PolygonShape, xf1 *box2d.B2Transform, edge1 int, poly2 *box2d.B2PolygonShape, xf2 *box2d.B2Transform) {
	// The normal of the reference edge in poly2's frame.
	normal1 := box2d.B2RotVec2MulT(xf2.Q, box2d.B2RotVec2Mul(xf1.Q, poly1.M_normals[edge1]))

	count2 := poly2.M_count
	index := 0
	minDot := box2d.B2_maxFloat
	for i := range count2 {
		if dot := box2d.B2Vec2Dot(normal1, poly2.M_normals[i]); dot < minDot {
			minDot = dot
			index = i
		}
	}

	i1 := index
	i2 := 0
	if i1+1 < count2 {
		i2 = i1 + 1
	}
	c[0].V = box2d.B2TransformVec2Mul(*xf2, poly2.M_vertices[i1])
	c[0].Id = box2d.B2ContactID{IndexA: uint8(edge1), IndexB: uint8(i1), TypeA: box2d.B2ContactFeature_Type.E_face, TypeB: box2d.B2ContactFeature_Type.E_vertex}
	c[1].V = box2d.B2TransformVec2Mul(*xf2, poly2.M_vertices[i2])
	c[1].Id = box2d.B2ContactID{IndexA: uint8(edge1), IndexB: uint8(i2), TypeA: box2d.B2ContactFeature_Type.E_face, TypeB: box2d.B2ContactFeature_Type.E_vertex}
}

// clipSegment is B2ClipSegmentToLine: the part of the segment in behind
// the line normal·x = offset, into out; how many points it has.
func clipSegment(out, in *[2]box2d.B2ClipVertex, normal box2d.B2Vec2, offset float64, vertexIndexA int) int {
	n := 0
	distance0 := box2d.B2Vec2Dot(normal, in[0].V) - offset
	distance1 := box2d.B2Vec2Dot(normal, in[1].V) - offset
	if distance0 <= 0.0 {
		out[n] = in[0]
		n++
	}
	if distance1 <= 0.0 {
		out[n] = in[1]
		n++
	}
	// The ends on either side: the point where the segment crosses.
	if distance0*distance1 < 0.0 {
		interp := distance0 / (distance0 - distance1)
		out[n].V = box2d.B2Vec2Add(in[0].V, box2d.B2Vec2MulScalar(interp, box2d.B2Vec2Sub(in[1].V, in[0].V)))
		out[n].Id.IndexA = uint8(vertexIndexA)
		out[n].Id.IndexB = in[0].Id.IndexB
		out[n].Id.TypeA = box2d.B2ContactFeature_Type.E_vertex
		out[n].Id.TypeB = box2d.B2ContactFeature_Type.E_face
		n++
	}
	return n
}
