package physics

import (
	"math"

	"github.com/ByteArena/box2d"
)

// solveVelocities is B2ContactSolver.SolveVelocityConstraints, the same
// arithmetic in the same order, written out on the vectors' components:
// box2d's vector helpers return and update small structs, which left the
// bodies' velocities in memory through every point of every iteration,
// more often run than anything else in a step. Its clamps are flo and fhi,
// equal to math.Min and math.Max (which box2d calls) on every number. The
// solver's debug checks are left out.
func solveVelocities(solver *box2d.B2ContactSolver) {
	vels := solver.M_velocities
	for i := range solver.M_count {
		vc := &solver.M_velocityConstraints[i]

		indexA := vc.IndexA
		indexB := vc.IndexB
		mA := vc.InvMassA
		iA := vc.InvIA
		mB := vc.InvMassB
		iB := vc.InvIB
		pointCount := vc.PointCount

		velA, velB := &vels[indexA], &vels[indexB]
		vAx, vAy, wA := velA.V.X, velA.V.Y, velA.W
		vBx, vBy, wB := velB.V.X, velB.V.Y, velB.W

		nx, ny := vc.Normal.X, vc.Normal.Y
		// The tangent, box2d's cross of the normal with 1.
		tx, ty := 1.0*ny, -1.0*nx
		friction := vc.Friction
		tangentSpeed := vc.TangentSpeed

		// Solve tangent constraints first because non-penetration is more important
		// than friction.
		for j := range pointCount {
			vcp := &vc.Points[j]
			rAx, rAy, rBx, rBy := vcp.RA.X, vcp.RA.Y, vcp.RB.X, vcp.RB.Y

			// Relative velocity at contact: vB + ((wB × rB − vA) − wA × rA).
			dvx := vBx + ((-wB*rBy - vAx) - -wA*rAy)
			dvy := vBy + ((wB*rBx - vAy) - wA*rAx)

			// Compute tangent force
			vt := (dvx*tx + dvy*ty) - tangentSpeed
			lambda := vcp.TangentMass * (-vt)

			// b2Clamp the accumulated force
			maxFriction := friction * vcp.NormalImpulse
			newImpulse := fhi(-maxFriction, flo(vcp.TangentImpulse+lambda, maxFriction))
			lambda = newImpulse - vcp.TangentImpulse
			vcp.TangentImpulse = newImpulse

			// Apply contact impulse
			px, py := lambda*tx, lambda*ty

			vAx -= mA * px
			vAy -= mA * py
			wA -= iA * (rAx*py - rAy*px)

			vBx += mB * px
			vBy += mB * py
			wB += iB * (rBx*py - rBy*px)
		}

		// Solve normal constraints
		if pointCount == 1 {
			vcp := &vc.Points[0]
			rAx, rAy, rBx, rBy := vcp.RA.X, vcp.RA.Y, vcp.RB.X, vcp.RB.Y

			// Relative velocity at contact
			dvx := vBx + ((-wB*rBy - vAx) - -wA*rAy)
			dvy := vBy + ((wB*rBx - vAy) - wA*rAx)

			// Compute normal impulse
			vn := dvx*nx + dvy*ny
			lambda := -vcp.NormalMass * (vn - vcp.VelocityBias)

			// b2Clamp the accumulated impulse
			newImpulse := fhi(vcp.NormalImpulse+lambda, 0.0)
			lambda = newImpulse - vcp.NormalImpulse
			vcp.NormalImpulse = newImpulse

			// Apply contact impulse
			px, py := lambda*nx, lambda*ny
			vAx -= mA * px
			vAy -= mA * py
			wA -= iA * (rAx*py - rAy*px)

			vBx += mB * px
			vBy += mB * py
			wB += iB * (rBx*py - rBy*px)
		} else {
			// box2d's block solver for the two points (with Dirk
			// Gregorius): the new total impulses x ≥ 0 with the normal
			// velocities vn = A x + b' ≥ 0 and vn_i x_i = 0, found by
			// trying, in box2d's order, vn = 0, then vn1 = 0 with x2 = 0,
			// then vn2 = 0 with x1 = 0, then x = 0; b' = b − A a, a the
			// accumulated impulses. If none fits, nothing is applied.
			cp1 := &vc.Points[0]
			cp2 := &vc.Points[1]
			r1Ax, r1Ay, r1Bx, r1By := cp1.RA.X, cp1.RA.Y, cp1.RB.X, cp1.RB.Y
			r2Ax, r2Ay, r2Bx, r2By := cp2.RA.X, cp2.RA.Y, cp2.RB.X, cp2.RB.Y

			ax, ay := cp1.NormalImpulse, cp2.NormalImpulse

			// Relative velocity at contact
			dv1x := vBx + ((-wB*r1By - vAx) - -wA*r1Ay)
			dv1y := vBy + ((wB*r1Bx - vAy) - wA*r1Ax)
			dv2x := vBx + ((-wB*r2By - vAx) - -wA*r2Ay)
			dv2y := vBy + ((wB*r2Bx - vAy) - wA*r2Ax)

			// Compute normal velocity
			vn1 := dv1x*nx + dv1y*ny
			vn2 := dv2x*nx + dv2y*ny

			bx := vn1 - cp1.VelocityBias
			by := vn2 - cp2.VelocityBias

			// Compute b'
			k := &vc.K
			bx -= k.Ex.X*ax + k.Ey.X*ay
			by -= k.Ex.Y*ax + k.Ey.Y*ay

			var xx, xy float64
			solved := true
			nm := &vc.NormalMass
			// Case 1: vn = 0, x = −inv(A) b'.
			if xx, xy = -(nm.Ex.X*bx + nm.Ey.X*by), -(nm.Ex.Y*bx + nm.Ey.Y*by); xx >= 0.0 && xy >= 0.0 {
			} else if xx, xy = -cp1.NormalMass*bx, 0.0; xx >= 0.0 && k.Ex.Y*xx+by >= 0.0 {
				// Case 2: vn1 = 0 and x2 = 0.
			} else if xx, xy = 0.0, -cp2.NormalMass*by; xy >= 0.0 && k.Ey.X*xy+bx >= 0.0 {
				// Case 3: vn2 = 0 and x1 = 0.
			} else if xx, xy = 0.0, 0.0; bx >= 0.0 && by >= 0.0 {
				// Case 4: x1 = 0 and x2 = 0.
			} else {
				solved = false
			}
			if solved {
				// Apply the incremental impulse d = x − a.
				dx, dy := xx-ax, xy-ay
				p1x, p1y := dx*nx, dx*ny
				p2x, p2y := dy*nx, dy*ny
				vAx -= mA * (p1x + p2x)
				vAy -= mA * (p1y + p2y)
				wA -= iA * ((r1Ax*p1y - r1Ay*p1x) + (r2Ax*p2y - r2Ay*p2x))

				vBx += mB * (p1x + p2x)
				vBy += mB * (p1y + p2y)
				wB += iB * ((r1Bx*p1y - r1By*p1x) + (r2Bx*p2y - r2By*p2x))

				// Accumulate
				cp1.NormalImpulse = xx
				cp2.NormalImpulse = xy
			}
		}

		velA.V.X, velA.V.Y, velA.W = vAx, vAy, wA
		velB.V.X, velB.V.Y, velB.W = vBx, vBy, wB
	}
}

// worldPoints is B2WorldManifold.Initialize's normal and points (not its
// separations, which the solver's set-up does not read), the same
// arithmetic, for m placed by xfA and xfB. A manifold of circles, or one
// with no points, is box2d's own.
func worldPoints(m *box2d.B2Manifold, xfA *box2d.B2Transform, radiusA float64, xfB *box2d.B2Transform, radiusB float64) (normal box2d.B2Vec2, points [box2d.B2_maxManifoldPoints]box2d.B2Vec2) {
	if m.PointCount == 0 || (m.Type != box2d.B2Manifold_Type.E_faceA && m.Type != box2d.B2Manifold_Type.E_faceB) {
		wm := box2d.MakeB2WorldManifold()
		wm.Initialize(m, *xfA, radiusA, *xfB, radiusB)
		return wm.Normal, [box2d.B2_maxManifoldPoints]box2d.B2Vec2{wm.Points[0], wm.Points[1]}
	}
	// The face's body (1) and the other (2).
	xf1, xf2, r1, r2 := xfA, xfB, radiusA, radiusB
	if m.Type == box2d.B2Manifold_Type.E_faceB {
		xf1, xf2, r1, r2 = xfB, xfA, radiusB, radiusA
	}
	q1 := xf1.Q
	nx := q1.C*m.LocalNormal.X - q1.S*m.LocalNormal.Y
	ny := q1.S*m.LocalNormal.X + q1.C*m.LocalNormal.Y
	planeX := (q1.C*m.LocalPoint.X - q1.S*m.LocalPoint.Y) + xf1.P.X
	planeY := (q1.S*m.LocalPoint.X + q1.C*m.LocalPoint.Y) + xf1.P.Y
	q2 := xf2.Q
	for i := range m.PointCount {
		lp := m.Points[i].LocalPoint
		clipX := (q2.C*lp.X - q2.S*lp.Y) + xf2.P.X
		clipY := (q2.S*lp.X + q2.C*lp.Y) + xf2.P.Y
		// The point on the face's side and the one on the other's.
		d := r1 - ((clipX-planeX)*nx + (clipY-planeY)*ny)
		c1x, c1y := clipX+d*nx, clipY+d*ny
		c2x, c2y := clipX-r2*nx, clipY-r2*ny
		if m.Type == box2d.B2Manifold_Type.E_faceA {
			points[i] = box2d.B2Vec2{X: 0.5 * (c1x + c2x), Y: 0.5 * (c1y + c2y)}
		} else {
			points[i] = box2d.B2Vec2{X: 0.5 * (c2x + c1x), Y: 0.5 * (c2y + c1y)}
		}
	}
	if m.Type == box2d.B2Manifold_Type.E_faceB {
		// Ensure normal points from A to B.
		return box2d.B2Vec2{X: -nx, Y: -ny}, points
	}
	return box2d.B2Vec2{X: nx, Y: ny}, points
}

// warmStart is B2ContactSolver.WarmStart, on the components as in
// solveVelocities: each contact point's impulses from the last step
// applied to its bodies before the iterations.
func warmStart(solver *box2d.B2ContactSolver) {
	vels := solver.M_velocities
	for i := range solver.M_count {
		vc := &solver.M_velocityConstraints[i]

		mA := vc.InvMassA
		iA := vc.InvIA
		mB := vc.InvMassB
		iB := vc.InvIB

		velA, velB := &vels[vc.IndexA], &vels[vc.IndexB]
		vAx, vAy, wA := velA.V.X, velA.V.Y, velA.W
		vBx, vBy, wB := velB.V.X, velB.V.Y, velB.W

		nx, ny := vc.Normal.X, vc.Normal.Y
		tx, ty := 1.0*ny, -1.0*nx

		for j := range vc.PointCount {
			vcp := &vc.Points[j]
			ni, ti := vcp.NormalImpulse, vcp.TangentImpulse
			px, py := ni*nx+ti*tx, ni*ny+ti*ty
			wA -= iA * (vcp.RA.X*py - vcp.RA.Y*px)
			vAx -= mA * px
			vAy -= mA * py
			wB += iB * (vcp.RB.X*py - vcp.RB.Y*px)
			vBx += mB * px
			vBy += mB * py
		}

		velA.V.X, velA.V.Y, velA.W = vAx, vAy, wA
		velB.V.X, velB.V.Y, velB.W = vBx, vBy, wB
	}
}

// flo is math.Min(a, b) to the bit, two comparisons when a and b differ
// and are numbers; equal values (+0 and −0) and NaNs go to the built-in
// min, which agrees with math.Min on both.
func flo(a, b float64) float64 {
	if a < b {
		return a
	}
	if b < a {
		return b
	}
	return min(a, b)
}

// fhi is math.Max(a, b) as flo is math.Min.
func fhi(a, b float64) float64 {
	if a > b {
		return a
	}
	if b > a {
		return b
	}
	return max(a, b)
}

// solvePositions is B2ContactSolver.SolvePositionConstraints, the same
// arithmetic in the same order, on the vectors' components as in
// solveVelocities, with flo and fhi for its clamps, and the faces' solver
// manifold (B2PositionSolverManifold) worked out here. Each body's
// rotation is rot's, from turns, looked up again only when the body's
// angle has changed since its last point: the solver places both bodies
// for every contact point in every iteration, and most points leave an
// angle as it was (a fixed-rotation character, the static world).
func solvePositions(solver *box2d.B2ContactSolver, turns *rotCache) bool {
	minSeparation := 0.0
	positions := solver.M_positions
	for i := range solver.M_count {
		pc := &solver.M_positionConstraints[i]

		indexA := pc.IndexA
		indexB := pc.IndexB
		lcAx, lcAy := pc.LocalCenterA.X, pc.LocalCenterA.Y
		mA := pc.InvMassA
		iA := pc.InvIA
		lcBx, lcBy := pc.LocalCenterB.X, pc.LocalCenterB.Y
		mB := pc.InvMassB
		iB := pc.InvIB
		pointCount := pc.PointCount

		posA, posB := &positions[indexA], &positions[indexB]
		cAx, cAy, aA := posA.C.X, posA.C.Y, posA.A
		cBx, cBy, aB := posB.C.X, posB.C.Y, posB.A

		qA, qB := turns.of(aA), turns.of(aB)
		bitsA, bitsB := math.Float64bits(aA), math.Float64bits(aB)

		// Solve normal constraints
		for j := range pointCount {
			if b := math.Float64bits(aA); b != bitsA {
				qA, bitsA = turns.of(aA), b
			}
			if b := math.Float64bits(aB); b != bitsB {
				qB, bitsB = turns.of(aB), b
			}
			// The bodies' transforms: origin = centre − q·localCentre.
			pAx := cAx - (qA.C*lcAx - qA.S*lcAy)
			pAy := cAy - (qA.S*lcAx + qA.C*lcAy)
			pBx := cBx - (qB.C*lcBx - qB.S*lcBy)
			pBy := cBy - (qB.S*lcBx + qB.C*lcBy)

			var nx, ny, pointX, pointY, separation float64
			switch pc.Type {
			case box2d.B2Manifold_Type.E_faceA:
				nx, ny, pointX, pointY, separation = faceManifold(pc, j, qA, pAx, pAy, qB, pBx, pBy)
			case box2d.B2Manifold_Type.E_faceB:
				nx, ny, pointX, pointY, separation = faceManifold(pc, j, qB, pBx, pBy, qA, pAx, pAy)
				// Ensure normal points from A to B
				nx, ny = -nx, -ny
			default:
				var psm box2d.B2PositionSolverManifold
				psm.Initialize(pc, box2d.B2Transform{P: box2d.B2Vec2{X: pAx, Y: pAy}, Q: qA},
					box2d.B2Transform{P: box2d.B2Vec2{X: pBx, Y: pBy}, Q: qB}, j)
				nx, ny, pointX, pointY, separation = psm.Normal.X, psm.Normal.Y, psm.Point.X, psm.Point.Y, psm.Separation
			}

			rAx, rAy := pointX-cAx, pointY-cAy
			rBx, rBy := pointX-cBx, pointY-cBy

			// Track max constraint error.
			minSeparation = flo(minSeparation, separation)

			// Prevent large corrections and allow slop.
			C := fhi(-box2d.B2_maxLinearCorrection, flo(box2d.B2_baumgarte*(separation+box2d.B2_linearSlop), 0.0))

			// Compute the effective mass.
			rnA := rAx*ny - rAy*nx
			rnB := rBx*ny - rBy*nx
			K := mA + mB + iA*rnA*rnA + iB*rnB*rnB

			// Compute normal impulse
			impulse := 0.0
			if K > 0.0 {
				impulse = -C / K
			}

			px, py := impulse*nx, impulse*ny

			cAx -= mA * px
			cAy -= mA * py
			aA -= iA * (rAx*py - rAy*px)

			cBx += mB * px
			cBy += mB * py
			aB += iB * (rBx*py - rBy*px)
		}

		posA.C.X, posA.C.Y, posA.A = cAx, cAy, aA
		posB.C.X, posB.C.Y, posB.A = cBx, cBy, aB
	}

	// We can't expect minSpeparation >= -b2_linearSlop because we don't
	// push the separation above -b2_linearSlop.
	return minSeparation >= -3.0*box2d.B2_linearSlop
}

// faceManifold is B2PositionSolverManifold.Initialize for a manifold on
// a face of the body placed by (q1, p1), its point j on the other body's
// side placed by (q2, p2): the face's normal (before E_faceB turns it
// round), the point and the separation.
func faceManifold(pc *box2d.B2ContactPositionConstraint, j int, q1 box2d.B2Rot, p1x, p1y float64, q2 box2d.B2Rot, p2x, p2y float64) (nx, ny, x, y, separation float64) {
	ln, lp, lc := pc.LocalNormal, pc.LocalPoint, pc.LocalPoints[j]
	nx = q1.C*ln.X - q1.S*ln.Y
	ny = q1.S*ln.X + q1.C*ln.Y
	planeX := (q1.C*lp.X - q1.S*lp.Y) + p1x
	planeY := (q1.S*lp.X + q1.C*lp.Y) + p1y
	x = (q2.C*lc.X - q2.S*lc.Y) + p2x
	y = (q2.S*lc.X + q2.C*lc.Y) + p2y
	separation = ((x-planeX)*nx + (y-planeY)*ny) - pc.RadiusA - pc.RadiusB
	return nx, ny, x, y, separation
}

// synchronizeTransform is B2Body.SynchronizeTransform with turns.
func synchronizeTransform(b *box2d.B2Body, turns *rotCache) {
	b.M_xf.Q = turns.of(b.M_sweep.A)
	b.M_xf.P = box2d.B2Vec2Sub(b.M_sweep.C, box2d.B2RotVec2Mul(b.M_xf.Q, b.M_sweep.LocalCenter))
}

// shapeAABB is child's ComputeAABB of shape placed by xf, to the same
// bits. A polygon's is worked out here: box2d's takes the polygon by value,
// so each call through the shape interface copied its sixteen vectors,
// and it takes its bounds through math.Min and math.Max. This port's
// polygon box is short of the skin on its upper side (it takes the radius
// off both corners); so is this one, as the broad phase must not change.
func shapeAABB(aabb *box2d.B2AABB, shape box2d.B2ShapeInterface, xf box2d.B2Transform, child int) {
	poly, ok := shape.(*box2d.B2PolygonShape)
	if !ok {
		shape.ComputeAABB(aabb, xf, child)
		return
	}
	lower := box2d.B2TransformVec2Mul(xf, poly.M_vertices[0])
	upper := lower
	for i := 1; i < poly.M_count; i++ {
		v := box2d.B2TransformVec2Mul(xf, poly.M_vertices[i])
		lower = box2d.B2Vec2{X: flo(lower.X, v.X), Y: flo(lower.Y, v.Y)}
		upper = box2d.B2Vec2{X: fhi(upper.X, v.X), Y: fhi(upper.Y, v.Y)}
	}
	r := poly.M_radius
	aabb.LowerBound = box2d.B2Vec2{X: lower.X - r, Y: lower.Y - r}
	aabb.UpperBound = box2d.B2Vec2{X: upper.X - r, Y: upper.Y - r}
}

// combineAABB is B2AABB.CombineTwoInPlace with flo and fhi.
func combineAABB(bb *box2d.B2AABB, a, b box2d.B2AABB) {
	*bb = combined(&a, &b)
}

// initializeVelocities is B2ContactSolver.InitializeVelocityConstraints,
// the same arithmetic in the same order, reading each contact's manifold
// through its fields (box2d's getter copies the contact) and making the
// bodies' rotations by turns.
func initializeVelocities(solver *box2d.B2ContactSolver, turns *rotCache) {
	for i := 0; i < solver.M_count; i++ {
		vc := &solver.M_velocityConstraints[i]
		pc := &solver.M_positionConstraints[i]

		radiusA := pc.RadiusA
		radiusB := pc.RadiusB
		manifold := contactData(solver.M_contacts[vc.ContactIndex]).M_manifold

		indexA := vc.IndexA
		indexB := vc.IndexB

		mA := vc.InvMassA
		mB := vc.InvMassB
		iA := vc.InvIA
		iB := vc.InvIB
		localCenterA := pc.LocalCenterA
		localCenterB := pc.LocalCenterB

		cA := solver.M_positions[indexA].C
		aA := solver.M_positions[indexA].A
		vA := solver.M_velocities[indexA].V
		wA := solver.M_velocities[indexA].W

		cB := solver.M_positions[indexB].C
		aB := solver.M_positions[indexB].A
		vB := solver.M_velocities[indexB].V
		wB := solver.M_velocities[indexB].W

		var xfA, xfB box2d.B2Transform
		xfA.Q = turns.of(aA)
		xfB.Q = turns.of(aB)
		xfA.P = box2d.B2Vec2Sub(cA, box2d.B2RotVec2Mul(xfA.Q, localCenterA))
		xfB.P = box2d.B2Vec2Sub(cB, box2d.B2RotVec2Mul(xfB.Q, localCenterB))

		normal, points := worldPoints(manifold, &xfA, radiusA, &xfB, radiusB)
		vc.Normal = normal
		nx, ny := normal.X, normal.Y
		tx, ty := 1.0*ny, -1.0*nx // the tangent, box2d's cross of the normal with 1

		pointCount := vc.PointCount
		for j := range pointCount {
			vcp := &vc.Points[j]

			rAx, rAy := points[j].X-cA.X, points[j].Y-cA.Y
			rBx, rBy := points[j].X-cB.X, points[j].Y-cB.Y
			vcp.RA = box2d.B2Vec2{X: rAx, Y: rAy}
			vcp.RB = box2d.B2Vec2{X: rBx, Y: rBy}

			rnA := rAx*ny - rAy*nx
			rnB := rBx*ny - rBy*nx
			kNormal := mA + mB + iA*rnA*rnA + iB*rnB*rnB
			if kNormal > 0.0 {
				vcp.NormalMass = 1.0 / kNormal
			} else {
				vcp.NormalMass = 0.0
			}

			rtA := rAx*ty - rAy*tx
			rtB := rBx*ty - rBy*tx
			kTangent := mA + mB + iA*rtA*rtA + iB*rtB*rtB
			if kTangent > 0.0 {
				vcp.TangentMass = 1.0 / kTangent
			} else {
				vcp.TangentMass = 0.0
			}

			// Setup a velocity bias for restitution: the normal part of
			// ((vB + wB × rB) − vA) − wA × rA.
			vcp.VelocityBias = 0.0
			vRel := nx*(((vB.X+-wB*rBy)-vA.X)- -wA*rAy) + ny*(((vB.Y+wB*rBx)-vA.Y)-wA*rAx)
			if vRel < -box2d.B2_velocityThreshold {
				vcp.VelocityBias = -vc.Restitution * vRel
			}
		}

		// If we have two points, then prepare the block solver.
		if vc.PointCount == 2 {
			vcp1 := &vc.Points[0]
			vcp2 := &vc.Points[1]

			rn1A := box2d.B2Vec2Cross(vcp1.RA, vc.Normal)
			rn1B := box2d.B2Vec2Cross(vcp1.RB, vc.Normal)
			rn2A := box2d.B2Vec2Cross(vcp2.RA, vc.Normal)
			rn2B := box2d.B2Vec2Cross(vcp2.RB, vc.Normal)

			k11 := mA + mB + iA*rn1A*rn1A + iB*rn1B*rn1B
			k22 := mA + mB + iA*rn2A*rn2A + iB*rn2B*rn2B
			k12 := mA + mB + iA*rn1A*rn2A + iB*rn1B*rn2B

			// Ensure a reasonable condition number.
			k_maxConditionNumber := 1000.0
			if k11*k11 < k_maxConditionNumber*(k11*k22-k12*k12) {
				// K is safe to invert.
				vc.K.Ex.Set(k11, k12)
				vc.K.Ey.Set(k12, k22)
				vc.NormalMass = vc.K.GetInverse()
			} else {
				// The constraints are redundant, just use one.
				// TODO_ERIN use deepest?
				vc.PointCount = 1
			}
		}
	}
}
