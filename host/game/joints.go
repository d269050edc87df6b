package game

import (
	"fmt"
	"slices"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/physics"
)

// makeJoints makes a file's [[joint]]s between the entities it built
// (idOf maps a file id, a scene's slot or a prefab's uid, to the entity it
// became), for the file placed at pose in the world. A joint physics
// refuses, which the file's checks should have made impossible, is an
// error naming the file and the joint's line.
func (g *Game) makeJoints(file string, joints []project.JointDef, pose entity.Transform, idOf func(uint32) entity.ID) error {
	for i := range joints {
		j := &joints[i]
		a, b := idOf(j.A), entity.None
		if !j.ToWorld {
			b = idOf(j.B)
		}
		d := j.World(pose)
		id, err := g.phys.AddJoint(a, b, &d)
		if err != nil {
			return &project.ConfigError{File: file, Line: j.Line, Key: "joint", Err: err, Reason: err.Error()}
		}
		if j.Name != "" {
			g.jointNames[id] = j.Name
		}
	}
	return nil
}

// instanceJoints makes the joints of the prefab instance rooted at root,
// spawned at pose: between its bodies (the root's and its parts'), and
// from them to the world where the prefab says, in the world the instance
// was spawned into. A joint naming a part destroyed since is left out.
func (g *Game) instanceJoints(root entity.ID, pose entity.Transform) error {
	o := g.store.Origin(root)
	if o.Prefab == "" {
		return nil
	}
	p, err := g.Prefab(o.Prefab)
	if err != nil || len(p.Joints) == 0 {
		return err
	}
	byUID := map[uint32]entity.ID{}
	for _, id := range g.store.Members(root) {
		byUID[g.store.Origin(id).UID] = id
	}
	joints := slices.DeleteFunc(slices.Clone(p.Joints), func(j project.JointDef) bool {
		_, a := byUID[j.A]
		_, b := byUID[j.B]
		return !a || !b && !j.ToWorld
	})
	return g.makeJoints(p.File, joints, pose, func(uid uint32) entity.ID { return byUID[uid] })
}

// JointName is the name a scene or prefab gave joint id, or "".
func (g *Game) JointName(id physics.JointID) string { return g.jointNames[id] }

// forgetJoints drops the names of id's joints, which leave with its body.
func (g *Game) forgetJoints(id entity.ID) {
	g.phys.JointsOf(id, func(j physics.JointID) bool {
		delete(g.jointNames, j)
		return true
	})
}

// spawnPose is where the instance rooted at root was spawned: its spawn
// record's pose, or, offline, given is the pose the spawn was asked for.
func (g *Game) spawnPose(root entity.ID, given *entity.Transform) (entity.Transform, error) {
	if ns := g.store.NetSpawn(root); ns != nil {
		return ns.Pose, nil
	}
	if given != nil {
		return *given, nil
	}
	return entity.Transform{}, fmt.Errorf("game: the pose %v was spawned at is not known", root)
}
