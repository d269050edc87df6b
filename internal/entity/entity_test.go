package entity

import (
	"math"
	"testing"
)

// TestNames pins the names body types, shape kinds, controller modes and joint kinds print as: scene
// files, the view's page and error messages spell them so.
func TestNames(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Static.String(), "static"},
		{Dynamic.String(), "dynamic"},
		{Kinematic.String(), "kinematic"},
		{Decoration.String(), "decoration"},
		{BodyType(4).String(), "BodyType(4)"},
		{Box.String(), "box"},
		{Circle.String(), "circle"},
		{Polygon.String(), "polygon"},
		{Chain.String(), "chain"},
		{ShapeKind(9).String(), "ShapeKind(9)"},
		{SideView.String(), "side"},
		{TopDown.String(), "topdown"},
		{Revolute.String(), "revolute"},
		{Prismatic.String(), "prismatic"},
		{Distance.String(), "distance"},
		{Weld.String(), "weld"},
		{Wheel.String(), "wheel"},
		{Motor.String(), "motor"},
		{Rope.String(), "rope"},
		{Mouse.String(), "mouse"},
		{Friction.String(), "friction"},
		{JointKind(9).String(), "JointKind(9)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestControllerMove(t *testing.T) {
	r := math.Sqrt(0.5)
	for _, tc := range []struct {
		mode         ControllerMode
		x, y, wx, wy float64
	}{
		{SideView, 0.5, 0.7, 0.5, 0},
		{SideView, -2, 0, -1, 0},
		{TopDown, 0.6, -0.8, 0.6, -0.8},
		{TopDown, 0.3, 0.2, 0.3, 0.2},
		{TopDown, 1, 1, r, r},
		{TopDown, 0, -5, 0, -1},
		{TopDown, 0, 0, 0, 0},
	} {
		c := CharacterController{Mode: tc.mode, MoveY: 9}
		c.Move(tc.x, tc.y)
		if math.Abs(c.MoveX-tc.wx) > 1e-15 || math.Abs(c.MoveY-tc.wy) > 1e-15 {
			t.Errorf("%v Move(%g, %g): (%g, %g), want (%g, %g)", tc.mode, tc.x, tc.y, c.MoveX, c.MoveY, tc.wx, tc.wy)
		}
		if n := math.Hypot(c.MoveX, c.MoveY); n > 1+1e-15 {
			t.Errorf("%v Move(%g, %g): length %g", tc.mode, tc.x, tc.y, n)
		}
	}
}
