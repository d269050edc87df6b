package physics

import "github.com/ByteArena/box2d"

// solveVelocities is B2ContactSolver.SolveVelocityConstraints, the same
// arithmetic in the same order, with its clamps made by the built-in min
// and max rather than math.Min and math.Max: those are calls, and the
// solver clamps every contact point's impulses in every iteration, more
// often than anything else in a step. The two agree on every number,
// signed zeros and infinities included; they differ only where one side
// is NaN, which no solvable world holds. The solver's debug checks are
// left out.
func solveVelocities(solver *box2d.B2ContactSolver) {
	for i := 0; i < solver.M_count; i++ {
		vc := &solver.M_velocityConstraints[i]

		indexA := vc.IndexA
		indexB := vc.IndexB
		mA := vc.InvMassA
		iA := vc.InvIA
		mB := vc.InvMassB
		iB := vc.InvIB
		pointCount := vc.PointCount

		vA := solver.M_velocities[indexA].V
		wA := solver.M_velocities[indexA].W
		vB := solver.M_velocities[indexB].V
		wB := solver.M_velocities[indexB].W

		normal := vc.Normal
		tangent := box2d.B2Vec2CrossVectorScalar(normal, 1.0)
		friction := vc.Friction

		// Solve tangent constraints first because non-penetration is more important
		// than friction.
		for j := 0; j < pointCount; j++ {
			vcp := &vc.Points[j]

			// Relative velocity at contact
			dv := box2d.B2Vec2Add(
				vB,
				box2d.B2Vec2Sub(
					box2d.B2Vec2Sub(
						box2d.B2Vec2CrossScalarVector(wB, vcp.RB),
						vA,
					),
					box2d.B2Vec2CrossScalarVector(wA, vcp.RA),
				),
			)

			// Compute tangent force
			vt := box2d.B2Vec2Dot(dv, tangent) - vc.TangentSpeed
			lambda := vcp.TangentMass * (-vt)

			// b2Clamp the accumulated force
			maxFriction := friction * vcp.NormalImpulse
			newImpulse := max(-maxFriction, min(vcp.TangentImpulse+lambda, maxFriction))
			lambda = newImpulse - vcp.TangentImpulse
			vcp.TangentImpulse = newImpulse

			// Apply contact impulse
			P := box2d.B2Vec2MulScalar(lambda, tangent)

			vA.OperatorMinusInplace(box2d.B2Vec2MulScalar(mA, P))
			wA -= iA * box2d.B2Vec2Cross(vcp.RA, P)

			vB.OperatorPlusInplace(box2d.B2Vec2MulScalar(mB, P))
			wB += iB * box2d.B2Vec2Cross(vcp.RB, P)
		}

		// Solve normal constraints
		if pointCount == 1 {
			for j := 0; j < pointCount; j++ {
				vcp := &vc.Points[j]

				// Relative velocity at contact
				dv := box2d.B2Vec2Add(
					vB,
					box2d.B2Vec2Sub(
						box2d.B2Vec2Sub(
							box2d.B2Vec2CrossScalarVector(wB, vcp.RB),
							vA,
						),
						box2d.B2Vec2CrossScalarVector(wA, vcp.RA),
					),
				)

				// Compute normal impulse
				vn := box2d.B2Vec2Dot(dv, normal)
				lambda := -vcp.NormalMass * (vn - vcp.VelocityBias)

				// b2Clamp the accumulated impulse
				newImpulse := max(vcp.NormalImpulse+lambda, 0.0)
				lambda = newImpulse - vcp.NormalImpulse
				vcp.NormalImpulse = newImpulse

				// Apply contact impulse
				P := box2d.B2Vec2MulScalar(lambda, normal)
				vA.OperatorMinusInplace(box2d.B2Vec2MulScalar(mA, P))
				wA -= iA * box2d.B2Vec2Cross(vcp.RA, P)

				vB.OperatorPlusInplace(box2d.B2Vec2MulScalar(mB, P))
				wB += iB * box2d.B2Vec2Cross(vcp.RB, P)
			}
		} else {
			// Block solver developed in collaboration with Dirk Gregorius (back in 01/07 on Box2D_Lite).
			// Build the mini LCP for this contact patch
			//
			// vn = A * x + b, vn >= 0, x >= 0 and vn_i * x_i = 0 with i = 1..2
			//
			// A = J * W * JT and J = ( -n, -r1 x n, n, r2 x n )
			// b = vn0 - velocityBias
			//
			// The system is solved using the "Total enumeration method" (s. Murty). The complementary constraint vn_i * x_i
			// implies that we must have in any solution either vn_i = 0 or x_i = 0. So for the 2D contact problem the cases
			// vn1 = 0 and vn2 = 0, x1 = 0 and x2 = 0, x1 = 0 and vn2 = 0, x2 = 0 and vn1 = 0 need to be tested. The first valid
			// solution that satisfies the problem is chosen.
			//
			// In order to account of the accumulated impulse 'a' (because of the iterative nature of the solver which only requires
			// that the accumulated impulse is clamped and not the incremental impulse) we change the impulse variable (x_i).
			//
			// Substitute:
			//
			// x = a + d
			//
			// a := old total impulse
			// x := new total impulse
			// d := incremental impulse
			//
			// For the current iteration we extend the formula for the incremental impulse
			// to compute the new total impulse:
			//
			// vn = A * d + b
			//    = A * (x - a) + b
			//    = A * x + b - A * a
			//    = A * x + b'
			// b' = b - A * a;

			cp1 := &vc.Points[0]
			cp2 := &vc.Points[1]

			a := box2d.MakeB2Vec2(cp1.NormalImpulse, cp2.NormalImpulse)

			// Relative velocity at contact
			dv1 := box2d.B2Vec2Add(vB, box2d.B2Vec2Sub(box2d.B2Vec2Sub(box2d.B2Vec2CrossScalarVector(wB, cp1.RB), vA), box2d.B2Vec2CrossScalarVector(wA, cp1.RA)))
			dv2 := box2d.B2Vec2Add(vB, box2d.B2Vec2Sub(box2d.B2Vec2Sub(box2d.B2Vec2CrossScalarVector(wB, cp2.RB), vA), box2d.B2Vec2CrossScalarVector(wA, cp2.RA)))

			// Compute normal velocity
			vn1 := box2d.B2Vec2Dot(dv1, normal)
			vn2 := box2d.B2Vec2Dot(dv2, normal)

			b := box2d.MakeB2Vec2(0, 0)
			b.X = vn1 - cp1.VelocityBias
			b.Y = vn2 - cp2.VelocityBias

			// Compute b'
			b.OperatorMinusInplace(box2d.B2Vec2Mat22Mul(vc.K, a))

			for {
				//
				// Case 1: vn = 0
				//
				// 0 = A * x + b'
				//
				// Solve for x:
				//
				// x = - inv(A) * b'
				//
				x := box2d.B2Vec2Mat22Mul(vc.NormalMass, b).OperatorNegate()

				if x.X >= 0.0 && x.Y >= 0.0 {
					// Get the incremental impulse
					d := box2d.B2Vec2Sub(x, a)

					// Apply incremental impulse
					P1 := box2d.B2Vec2MulScalar(d.X, normal)
					P2 := box2d.B2Vec2MulScalar(d.Y, normal)
					vA.OperatorMinusInplace(box2d.B2Vec2MulScalar(mA, box2d.B2Vec2Add(P1, P2)))
					wA -= iA * (box2d.B2Vec2Cross(cp1.RA, P1) + box2d.B2Vec2Cross(cp2.RA, P2))

					vB.OperatorPlusInplace(box2d.B2Vec2MulScalar(mB, box2d.B2Vec2Add(P1, P2)))
					wB += iB * (box2d.B2Vec2Cross(cp1.RB, P1) + box2d.B2Vec2Cross(cp2.RB, P2))

					// Accumulate
					cp1.NormalImpulse = x.X
					cp2.NormalImpulse = x.Y

					break
				}

				//
				// Case 2: vn1 = 0 and x2 = 0
				//
				//   0 = a11 * x1 + a12 * 0 + b1'
				// vn2 = a21 * x1 + a22 * 0 + b2'
				//
				x.X = -cp1.NormalMass * b.X
				x.Y = 0.0
				vn1 = 0.0
				vn2 = vc.K.Ex.Y*x.X + b.Y
				if x.X >= 0.0 && vn2 >= 0.0 {
					// Get the incremental impulse
					d := box2d.B2Vec2Sub(x, a)

					// Apply incremental impulse
					P1 := box2d.B2Vec2MulScalar(d.X, normal)
					P2 := box2d.B2Vec2MulScalar(d.Y, normal)
					vA.OperatorMinusInplace(box2d.B2Vec2MulScalar(mA, box2d.B2Vec2Add(P1, P2)))
					wA -= iA * (box2d.B2Vec2Cross(cp1.RA, P1) + box2d.B2Vec2Cross(cp2.RA, P2))

					vB.OperatorPlusInplace(box2d.B2Vec2MulScalar(mB, box2d.B2Vec2Add(P1, P2)))
					wB += iB * (box2d.B2Vec2Cross(cp1.RB, P1) + box2d.B2Vec2Cross(cp2.RB, P2))

					// Accumulate
					cp1.NormalImpulse = x.X
					cp2.NormalImpulse = x.Y

					break
				}

				//
				// Case 3: vn2 = 0 and x1 = 0
				//
				// vn1 = a11 * 0 + a12 * x2 + b1'
				//   0 = a21 * 0 + a22 * x2 + b2'
				//
				x.X = 0.0
				x.Y = -cp2.NormalMass * b.Y
				vn1 = vc.K.Ey.X*x.Y + b.X
				vn2 = 0.0

				if x.Y >= 0.0 && vn1 >= 0.0 {
					// Resubstitute for the incremental impulse
					d := box2d.B2Vec2Sub(x, a)

					// Apply incremental impulse
					P1 := box2d.B2Vec2MulScalar(d.X, normal)
					P2 := box2d.B2Vec2MulScalar(d.Y, normal)
					vA.OperatorMinusInplace(box2d.B2Vec2MulScalar(mA, box2d.B2Vec2Add(P1, P2)))
					wA -= iA * (box2d.B2Vec2Cross(cp1.RA, P1) + box2d.B2Vec2Cross(cp2.RA, P2))

					vB.OperatorPlusInplace(box2d.B2Vec2MulScalar(mB, box2d.B2Vec2Add(P1, P2)))
					wB += iB * (box2d.B2Vec2Cross(cp1.RB, P1) + box2d.B2Vec2Cross(cp2.RB, P2))

					// Accumulate
					cp1.NormalImpulse = x.X
					cp2.NormalImpulse = x.Y

					break
				}

				//
				// Case 4: x1 = 0 and x2 = 0
				//
				// vn1 = b1
				// vn2 = b2;
				x.X = 0.0
				x.Y = 0.0
				vn1 = b.X
				vn2 = b.Y

				if vn1 >= 0.0 && vn2 >= 0.0 {
					// Resubstitute for the incremental impulse
					d := box2d.B2Vec2Sub(x, a)

					// Apply incremental impulse
					P1 := box2d.B2Vec2MulScalar(d.X, normal)
					P2 := box2d.B2Vec2MulScalar(d.Y, normal)
					vA.OperatorMinusInplace(box2d.B2Vec2MulScalar(mA, box2d.B2Vec2Add(P1, P2)))
					wA -= iA * (box2d.B2Vec2Cross(cp1.RA, P1) + box2d.B2Vec2Cross(cp2.RA, P2))

					vB.OperatorPlusInplace(box2d.B2Vec2MulScalar(mB, box2d.B2Vec2Add(P1, P2)))
					wB += iB * (box2d.B2Vec2Cross(cp1.RB, P1) + box2d.B2Vec2Cross(cp2.RB, P2))

					// Accumulate
					cp1.NormalImpulse = x.X
					cp2.NormalImpulse = x.Y

					break
				}

				// No solution, give up. This is hit sometimes, but it doesn't seem to matter.
				break
			}
		}

		solver.M_velocities[indexA].V = vA
		solver.M_velocities[indexA].W = wA
		solver.M_velocities[indexB].V = vB
		solver.M_velocities[indexB].W = wB
	}
}

// solvePositions is B2ContactSolver.SolvePositionConstraints, the same
// arithmetic in the same order, with the same built-in min and max as
// solveVelocities and each body's rotation made by rot, which turns no
// angle of zero (a fixed-rotation character, the static world) through a
// sine and a cosine: the solver builds both bodies' transforms for every
// contact point in every iteration; turns remembers the rotations.
func solvePositions(solver *box2d.B2ContactSolver, turns *rotCache) bool {
	minSeparation := 0.0
	for i := 0; i < solver.M_count; i++ {
		pc := &solver.M_positionConstraints[i]

		indexA := pc.IndexA
		indexB := pc.IndexB
		localCenterA := pc.LocalCenterA
		mA := pc.InvMassA
		iA := pc.InvIA
		localCenterB := pc.LocalCenterB
		mB := pc.InvMassB
		iB := pc.InvIB
		pointCount := pc.PointCount

		cA := solver.M_positions[indexA].C
		aA := solver.M_positions[indexA].A

		cB := solver.M_positions[indexB].C
		aB := solver.M_positions[indexB].A

		// Solve normal constraints
		for j := 0; j < pointCount; j++ {
			var xfA, xfB box2d.B2Transform
			xfA.Q = turns.of(aA)
			xfB.Q = turns.of(aB)
			xfA.P = box2d.B2Vec2Sub(cA, box2d.B2RotVec2Mul(xfA.Q, localCenterA))
			xfB.P = box2d.B2Vec2Sub(cB, box2d.B2RotVec2Mul(xfB.Q, localCenterB))

			var psm box2d.B2PositionSolverManifold
			psm.Initialize(pc, xfA, xfB, j)
			normal := psm.Normal

			point := psm.Point
			separation := psm.Separation

			rA := box2d.B2Vec2Sub(point, cA)
			rB := box2d.B2Vec2Sub(point, cB)

			// Track max constraint error.
			minSeparation = min(minSeparation, separation)

			// Prevent large corrections and allow slop.
			C := max(-box2d.B2_maxLinearCorrection, min(box2d.B2_baumgarte*(separation+box2d.B2_linearSlop), 0.0))

			// Compute the effective mass.
			rnA := box2d.B2Vec2Cross(rA, normal)
			rnB := box2d.B2Vec2Cross(rB, normal)
			K := mA + mB + iA*rnA*rnA + iB*rnB*rnB

			// Compute normal impulse
			impulse := 0.0
			if K > 0.0 {
				impulse = -C / K
			}

			P := box2d.B2Vec2MulScalar(impulse, normal)

			cA.OperatorMinusInplace(box2d.B2Vec2MulScalar(mA, P))
			aA -= iA * box2d.B2Vec2Cross(rA, P)

			cB.OperatorPlusInplace(box2d.B2Vec2MulScalar(mB, P))
			aB += iB * box2d.B2Vec2Cross(rB, P)
		}

		solver.M_positions[indexA].C = cA
		solver.M_positions[indexA].A = aA

		solver.M_positions[indexB].C = cB
		solver.M_positions[indexB].A = aB
	}

	// We can't expect minSpeparation >= -b2_linearSlop because we don't
	// push the separation above -b2_linearSlop.
	return minSeparation >= -3.0*box2d.B2_linearSlop
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
		lower = box2d.B2Vec2{X: min(lower.X, v.X), Y: min(lower.Y, v.Y)}
		upper = box2d.B2Vec2{X: max(upper.X, v.X), Y: max(upper.Y, v.Y)}
	}
	r := poly.M_radius
	aabb.LowerBound = box2d.B2Vec2{X: lower.X - r, Y: lower.Y - r}
	aabb.UpperBound = box2d.B2Vec2{X: upper.X - r, Y: upper.Y - r}
}

// combineAABB is B2AABB.CombineTwoInPlace with the built-in min and max.
func combineAABB(bb *box2d.B2AABB, a, b box2d.B2AABB) {
	bb.LowerBound = box2d.B2Vec2{X: min(a.LowerBound.X, b.LowerBound.X), Y: min(a.LowerBound.Y, b.LowerBound.Y)}
	bb.UpperBound = box2d.B2Vec2{X: max(a.UpperBound.X, b.UpperBound.X), Y: max(a.UpperBound.Y, b.UpperBound.Y)}
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

		worldManifold := box2d.MakeB2WorldManifold()
		worldManifold.Initialize(manifold, xfA, radiusA, xfB, radiusB)

		vc.Normal = worldManifold.Normal

		pointCount := vc.PointCount
		for j := 0; j < pointCount; j++ {
			vcp := &vc.Points[j]

			vcp.RA = box2d.B2Vec2Sub(worldManifold.Points[j], cA)
			vcp.RB = box2d.B2Vec2Sub(worldManifold.Points[j], cB)

			rnA := box2d.B2Vec2Cross(vcp.RA, vc.Normal)
			rnB := box2d.B2Vec2Cross(vcp.RB, vc.Normal)

			kNormal := mA + mB + iA*rnA*rnA + iB*rnB*rnB

			if kNormal > 0.0 {
				vcp.NormalMass = 1.0 / kNormal
			} else {
				vcp.NormalMass = 0.0
			}

			tangent := box2d.B2Vec2CrossVectorScalar(vc.Normal, 1.0)

			rtA := box2d.B2Vec2Cross(vcp.RA, tangent)
			rtB := box2d.B2Vec2Cross(vcp.RB, tangent)

			kTangent := mA + mB + iA*rtA*rtA + iB*rtB*rtB

			if kTangent > 0.0 {
				vcp.TangentMass = 1.0 / kTangent
			} else {
				vcp.TangentMass = 0.0
			}

			// Setup a velocity bias for restitution.
			vcp.VelocityBias = 0.0
			vRel := box2d.B2Vec2Dot(
				vc.Normal,
				box2d.B2Vec2Sub(
					box2d.B2Vec2Sub(
						box2d.B2Vec2Add(
							vB,
							box2d.B2Vec2CrossScalarVector(wB, vcp.RB),
						),
						vA),
					box2d.B2Vec2CrossScalarVector(wA, vcp.RA),
				),
			)
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
