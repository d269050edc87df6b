package entity

import "testing"

// TestNames pins the names body types and shape kinds print as: scene
// files, the view's page and error messages spell them so.
func TestNames(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Static.String(), "static"},
		{Dynamic.String(), "dynamic"},
		{Kinematic.String(), "kinematic"},
		{BodyType(3).String(), "BodyType(3)"},
		{Box.String(), "box"},
		{Circle.String(), "circle"},
		{Polygon.String(), "polygon"},
		{Chain.String(), "chain"},
		{ShapeKind(9).String(), "ShapeKind(9)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
