// duel: go-kgp's server playing its first KGP client against one built-in bot for N games,
// alternating sides; prints one line a game and a summary. Built against go-kgp's packages.
package main

import (
	"flag"
	"fmt"
	"log"

	"go-kgp"
	"go-kgp/bot"
	cmd "go-kgp/cmd"
	"go-kgp/db"
	"go-kgp/game"
	"go-kgp/proto"
)

var (
	games = flag.Uint("games", 4, "games to play")
	depth = flag.Uint("depth", 0, "MinMax depth of the bot; 0: the random bot")
)

type duel struct {
	add chan kgp.Agent
}

func (d *duel) String() string          { return "duel scheduler" }
func (d *duel) Shutdown()               {}
func (d *duel) Schedule(a kgp.Agent)    { d.add <- a }
func (d *duel) Unschedule(a kgp.Agent)  {}

func (d *duel) Start(st *cmd.State, conf *cmd.Conf) {
	var opp kgp.Agent = bot.MakeRandom()
	if *depth > 0 {
		opp = bot.MakeMinMax(*depth, 1)
	}
	client := <-d.add
	go func() { // later Schedule calls (after each game) must not block
		for range d.add {
		}
	}()
	var w, dr, l int
	var margin int
	for i := uint(0); i < *games; i++ {
		g := &kgp.Game{Board: kgp.MakeBoard(conf.Game.Open.Size, conf.Game.Open.Init)}
		side := kgp.South
		g.South, g.North = client, opp
		if i%2 == 1 {
			side = kgp.North
			g.South, g.North = opp, client
		}
		if err := game.Play(g, st, conf); err != nil {
			log.Fatal(err)
		}
		own, other := g.Board.Store(side), g.Board.Store(!side)
		res := "draw"
		switch {
		case g.State == kgp.SOUTH_RESIGNED && side == kgp.South,
			g.State == kgp.NORTH_RESIGNED && side == kgp.North:
			res = "loss (resigned)"
			l++
		case own > other:
			res = "win"
			w++
		case own < other:
			res = "loss"
			l++
		default:
			dr++
		}
		margin += int(own) - int(other)
		fmt.Printf("game %d: kalah kgp as %s against %s: %d-%d, %s\n",
			i+1, side, opp, own, other, res)
	}
	fmt.Printf("%d games against %s on %d pits x %d stones: %d wins, %d draws, %d losses, total margin %+d\n",
		*games, opp, conf.Game.Open.Size, conf.Game.Open.Init, w, dr, l, margin)
	st.Kill()
}

func main() {
	flag.Parse()
	var conf cmd.Conf
	st := cmd.MakeState()
	conf.Load()
	db.Register(st, &conf)
	st.Register(&duel{add: make(chan kgp.Agent, 16)})
	proto.Register(st, &conf)
	st.Start(&conf)
}
