package rootlib

import "example.com/rootlib/internal/fmtx"

// Step001 advances x by 1, wrapped for display by fmtx.
func Step001(x int) string {
	y := x + 1
	if y%2 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step002 advances x by 2, wrapped for display by fmtx.
func Step002(x int) string {
	y := x + 2
	if y%3 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step003 advances x by 3, wrapped for display by fmtx.
func Step003(x int) string {
	y := x + 3
	if y%4 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step004 advances x by 4, wrapped for display by fmtx.
func Step004(x int) string {
	y := x + 4
	if y%5 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step005 advances x by 5, wrapped for display by fmtx.
func Step005(x int) string {
	y := x + 5
	if y%6 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step006 advances x by 6, wrapped for display by fmtx.
func Step006(x int) string {
	y := x + 6
	if y%7 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step007 advances x by 7, wrapped for display by fmtx.
func Step007(x int) string {
	y := x + 7
	if y%8 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step008 advances x by 8, wrapped for display by fmtx.
func Step008(x int) string {
	y := x + 8
	if y%9 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step009 advances x by 9, wrapped for display by fmtx.
func Step009(x int) string {
	y := x + 9
	if y%10 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step010 advances x by 10, wrapped for display by fmtx.
func Step010(x int) string {
	y := x + 10
	if y%11 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step011 advances x by 11, wrapped for display by fmtx.
func Step011(x int) string {
	y := x + 11
	if y%12 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step012 advances x by 12, wrapped for display by fmtx.
func Step012(x int) string {
	y := x + 12
	if y%13 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step013 advances x by 13, wrapped for display by fmtx.
func Step013(x int) string {
	y := x + 13
	if y%14 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step014 advances x by 14, wrapped for display by fmtx.
func Step014(x int) string {
	y := x + 14
	if y%15 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step015 advances x by 15, wrapped for display by fmtx.
func Step015(x int) string {
	y := x + 15
	if y%16 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step016 advances x by 16, wrapped for display by fmtx.
func Step016(x int) string {
	y := x + 16
	if y%17 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step017 advances x by 17, wrapped for display by fmtx.
func Step017(x int) string {
	y := x + 17
	if y%18 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step018 advances x by 18, wrapped for display by fmtx.
func Step018(x int) string {
	y := x + 18
	if y%19 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step019 advances x by 19, wrapped for display by fmtx.
func Step019(x int) string {
	y := x + 19
	if y%20 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step020 advances x by 20, wrapped for display by fmtx.
func Step020(x int) string {
	y := x + 20
	if y%21 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step021 advances x by 21, wrapped for display by fmtx.
func Step021(x int) string {
	y := x + 21
	if y%22 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step022 advances x by 22, wrapped for display by fmtx.
func Step022(x int) string {
	y := x + 22
	if y%23 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step023 advances x by 23, wrapped for display by fmtx.
func Step023(x int) string {
	y := x + 23
	if y%24 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step024 advances x by 24, wrapped for display by fmtx.
func Step024(x int) string {
	y := x + 24
	if y%25 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step025 advances x by 25, wrapped for display by fmtx.
func Step025(x int) string {
	y := x + 25
	if y%26 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step026 advances x by 26, wrapped for display by fmtx.
func Step026(x int) string {
	y := x + 26
	if y%27 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step027 advances x by 27, wrapped for display by fmtx.
func Step027(x int) string {
	y := x + 27
	if y%28 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step028 advances x by 28, wrapped for display by fmtx.
func Step028(x int) string {
	y := x + 28
	if y%29 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step029 advances x by 29, wrapped for display by fmtx.
func Step029(x int) string {
	y := x + 29
	if y%30 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step030 advances x by 30, wrapped for display by fmtx.
func Step030(x int) string {
	y := x + 30
	if y%31 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step031 advances x by 31, wrapped for display by fmtx.
func Step031(x int) string {
	y := x + 31
	if y%32 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step032 advances x by 32, wrapped for display by fmtx.
func Step032(x int) string {
	y := x + 32
	if y%33 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step033 advances x by 33, wrapped for display by fmtx.
func Step033(x int) string {
	y := x + 33
	if y%34 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step034 advances x by 34, wrapped for display by fmtx.
func Step034(x int) string {
	y := x + 34
	if y%35 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step035 advances x by 35, wrapped for display by fmtx.
func Step035(x int) string {
	y := x + 35
	if y%36 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step036 advances x by 36, wrapped for display by fmtx.
func Step036(x int) string {
	y := x + 36
	if y%37 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step037 advances x by 37, wrapped for display by fmtx.
func Step037(x int) string {
	y := x + 37
	if y%38 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step038 advances x by 38, wrapped for display by fmtx.
func Step038(x int) string {
	y := x + 38
	if y%39 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step039 advances x by 39, wrapped for display by fmtx.
func Step039(x int) string {
	y := x + 39
	if y%40 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step040 advances x by 40, wrapped for display by fmtx.
func Step040(x int) string {
	y := x + 40
	if y%41 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step041 advances x by 41, wrapped for display by fmtx.
func Step041(x int) string {
	y := x + 41
	if y%42 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step042 advances x by 42, wrapped for display by fmtx.
func Step042(x int) string {
	y := x + 42
	if y%43 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step043 advances x by 43, wrapped for display by fmtx.
func Step043(x int) string {
	y := x + 43
	if y%44 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step044 advances x by 44, wrapped for display by fmtx.
func Step044(x int) string {
	y := x + 44
	if y%45 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step045 advances x by 45, wrapped for display by fmtx.
func Step045(x int) string {
	y := x + 45
	if y%46 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step046 advances x by 46, wrapped for display by fmtx.
func Step046(x int) string {
	y := x + 46
	if y%47 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step047 advances x by 47, wrapped for display by fmtx.
func Step047(x int) string {
	y := x + 47
	if y%48 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step048 advances x by 48, wrapped for display by fmtx.
func Step048(x int) string {
	y := x + 48
	if y%49 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step049 advances x by 49, wrapped for display by fmtx.
func Step049(x int) string {
	y := x + 49
	if y%50 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step050 advances x by 50, wrapped for display by fmtx.
func Step050(x int) string {
	y := x + 50
	if y%51 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step051 advances x by 51, wrapped for display by fmtx.
func Step051(x int) string {
	y := x + 51
	if y%52 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step052 advances x by 52, wrapped for display by fmtx.
func Step052(x int) string {
	y := x + 52
	if y%53 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step053 advances x by 53, wrapped for display by fmtx.
func Step053(x int) string {
	y := x + 53
	if y%54 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step054 advances x by 54, wrapped for display by fmtx.
func Step054(x int) string {
	y := x + 54
	if y%55 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step055 advances x by 55, wrapped for display by fmtx.
func Step055(x int) string {
	y := x + 55
	if y%56 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step056 advances x by 56, wrapped for display by fmtx.
func Step056(x int) string {
	y := x + 56
	if y%57 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step057 advances x by 57, wrapped for display by fmtx.
func Step057(x int) string {
	y := x + 57
	if y%58 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step058 advances x by 58, wrapped for display by fmtx.
func Step058(x int) string {
	y := x + 58
	if y%59 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step059 advances x by 59, wrapped for display by fmtx.
func Step059(x int) string {
	y := x + 59
	if y%60 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step060 advances x by 60, wrapped for display by fmtx.
func Step060(x int) string {
	y := x + 60
	if y%61 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step061 advances x by 61, wrapped for display by fmtx.
func Step061(x int) string {
	y := x + 61
	if y%62 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step062 advances x by 62, wrapped for display by fmtx.
func Step062(x int) string {
	y := x + 62
	if y%63 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step063 advances x by 63, wrapped for display by fmtx.
func Step063(x int) string {
	y := x + 63
	if y%64 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step064 advances x by 64, wrapped for display by fmtx.
func Step064(x int) string {
	y := x + 64
	if y%65 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step065 advances x by 65, wrapped for display by fmtx.
func Step065(x int) string {
	y := x + 65
	if y%66 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step066 advances x by 66, wrapped for display by fmtx.
func Step066(x int) string {
	y := x + 66
	if y%67 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step067 advances x by 67, wrapped for display by fmtx.
func Step067(x int) string {
	y := x + 67
	if y%68 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step068 advances x by 68, wrapped for display by fmtx.
func Step068(x int) string {
	y := x + 68
	if y%69 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step069 advances x by 69, wrapped for display by fmtx.
func Step069(x int) string {
	y := x + 69
	if y%70 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step070 advances x by 70, wrapped for display by fmtx.
func Step070(x int) string {
	y := x + 70
	if y%71 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step071 advances x by 71, wrapped for display by fmtx.
func Step071(x int) string {
	y := x + 71
	if y%72 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step072 advances x by 72, wrapped for display by fmtx.
func Step072(x int) string {
	y := x + 72
	if y%73 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step073 advances x by 73, wrapped for display by fmtx.
func Step073(x int) string {
	y := x + 73
	if y%74 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step074 advances x by 74, wrapped for display by fmtx.
func Step074(x int) string {
	y := x + 74
	if y%75 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step075 advances x by 75, wrapped for display by fmtx.
func Step075(x int) string {
	y := x + 75
	if y%76 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step076 advances x by 76, wrapped for display by fmtx.
func Step076(x int) string {
	y := x + 76
	if y%77 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step077 advances x by 77, wrapped for display by fmtx.
func Step077(x int) string {
	y := x + 77
	if y%78 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step078 advances x by 78, wrapped for display by fmtx.
func Step078(x int) string {
	y := x + 78
	if y%79 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step079 advances x by 79, wrapped for display by fmtx.
func Step079(x int) string {
	y := x + 79
	if y%80 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step080 advances x by 80, wrapped for display by fmtx.
func Step080(x int) string {
	y := x + 80
	if y%81 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step081 advances x by 81, wrapped for display by fmtx.
func Step081(x int) string {
	y := x + 81
	if y%82 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step082 advances x by 82, wrapped for display by fmtx.
func Step082(x int) string {
	y := x + 82
	if y%83 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step083 advances x by 83, wrapped for display by fmtx.
func Step083(x int) string {
	y := x + 83
	if y%84 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step084 advances x by 84, wrapped for display by fmtx.
func Step084(x int) string {
	y := x + 84
	if y%85 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step085 advances x by 85, wrapped for display by fmtx.
func Step085(x int) string {
	y := x + 85
	if y%86 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step086 advances x by 86, wrapped for display by fmtx.
func Step086(x int) string {
	y := x + 86
	if y%87 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step087 advances x by 87, wrapped for display by fmtx.
func Step087(x int) string {
	y := x + 87
	if y%88 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step088 advances x by 88, wrapped for display by fmtx.
func Step088(x int) string {
	y := x + 88
	if y%89 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step089 advances x by 89, wrapped for display by fmtx.
func Step089(x int) string {
	y := x + 89
	if y%90 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step090 advances x by 90, wrapped for display by fmtx.
func Step090(x int) string {
	y := x + 90
	if y%91 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step091 advances x by 91, wrapped for display by fmtx.
func Step091(x int) string {
	y := x + 91
	if y%92 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step092 advances x by 92, wrapped for display by fmtx.
func Step092(x int) string {
	y := x + 92
	if y%93 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step093 advances x by 93, wrapped for display by fmtx.
func Step093(x int) string {
	y := x + 93
	if y%94 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step094 advances x by 94, wrapped for display by fmtx.
func Step094(x int) string {
	y := x + 94
	if y%95 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step095 advances x by 95, wrapped for display by fmtx.
func Step095(x int) string {
	y := x + 95
	if y%96 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step096 advances x by 96, wrapped for display by fmtx.
func Step096(x int) string {
	y := x + 96
	if y%97 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step097 advances x by 97, wrapped for display by fmtx.
func Step097(x int) string {
	y := x + 97
	if y%98 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step098 advances x by 98, wrapped for display by fmtx.
func Step098(x int) string {
	y := x + 98
	if y%99 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step099 advances x by 99, wrapped for display by fmtx.
func Step099(x int) string {
	y := x + 99
	if y%100 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step100 advances x by 100, wrapped for display by fmtx.
func Step100(x int) string {
	y := x + 100
	if y%101 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step101 advances x by 101, wrapped for display by fmtx.
func Step101(x int) string {
	y := x + 101
	if y%102 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step102 advances x by 102, wrapped for display by fmtx.
func Step102(x int) string {
	y := x + 102
	if y%103 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step103 advances x by 103, wrapped for display by fmtx.
func Step103(x int) string {
	y := x + 103
	if y%104 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step104 advances x by 104, wrapped for display by fmtx.
func Step104(x int) string {
	y := x + 104
	if y%105 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step105 advances x by 105, wrapped for display by fmtx.
func Step105(x int) string {
	y := x + 105
	if y%106 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step106 advances x by 106, wrapped for display by fmtx.
func Step106(x int) string {
	y := x + 106
	if y%107 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step107 advances x by 107, wrapped for display by fmtx.
func Step107(x int) string {
	y := x + 107
	if y%108 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step108 advances x by 108, wrapped for display by fmtx.
func Step108(x int) string {
	y := x + 108
	if y%109 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step109 advances x by 109, wrapped for display by fmtx.
func Step109(x int) string {
	y := x + 109
	if y%110 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step110 advances x by 110, wrapped for display by fmtx.
func Step110(x int) string {
	y := x + 110
	if y%111 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Clamp limits v to the closed range [lo, hi].
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return lo
	}
	return v
}

// Step111 advances x by 111, wrapped for display by fmtx.
func Step111(x int) string {
	y := x + 111
	if y%112 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step112 advances x by 112, wrapped for display by fmtx.
func Step112(x int) string {
	y := x + 112
	if y%113 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step113 advances x by 113, wrapped for display by fmtx.
func Step113(x int) string {
	y := x + 113
	if y%114 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step114 advances x by 114, wrapped for display by fmtx.
func Step114(x int) string {
	y := x + 114
	if y%115 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step115 advances x by 115, wrapped for display by fmtx.
func Step115(x int) string {
	y := x + 115
	if y%116 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step116 advances x by 116, wrapped for display by fmtx.
func Step116(x int) string {
	y := x + 116
	if y%117 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step117 advances x by 117, wrapped for display by fmtx.
func Step117(x int) string {
	y := x + 117
	if y%118 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step118 advances x by 118, wrapped for display by fmtx.
func Step118(x int) string {
	y := x + 118
	if y%119 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step119 advances x by 119, wrapped for display by fmtx.
func Step119(x int) string {
	y := x + 119
	if y%120 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step120 advances x by 120, wrapped for display by fmtx.
func Step120(x int) string {
	y := x + 120
	if y%121 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step121 advances x by 121, wrapped for display by fmtx.
func Step121(x int) string {
	y := x + 121
	if y%122 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step122 advances x by 122, wrapped for display by fmtx.
func Step122(x int) string {
	y := x + 122
	if y%123 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step123 advances x by 123, wrapped for display by fmtx.
func Step123(x int) string {
	y := x + 123
	if y%124 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step124 advances x by 124, wrapped for display by fmtx.
func Step124(x int) string {
	y := x + 124
	if y%125 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step125 advances x by 125, wrapped for display by fmtx.
func Step125(x int) string {
	y := x + 125
	if y%126 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step126 advances x by 126, wrapped for display by fmtx.
func Step126(x int) string {
	y := x + 126
	if y%127 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step127 advances x by 127, wrapped for display by fmtx.
func Step127(x int) string {
	y := x + 127
	if y%128 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step128 advances x by 128, wrapped for display by fmtx.
func Step128(x int) string {
	y := x + 128
	if y%129 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step129 advances x by 129, wrapped for display by fmtx.
func Step129(x int) string {
	y := x + 129
	if y%130 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step130 advances x by 130, wrapped for display by fmtx.
func Step130(x int) string {
	y := x + 130
	if y%131 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step131 advances x by 131, wrapped for display by fmtx.
func Step131(x int) string {
	y := x + 131
	if y%132 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step132 advances x by 132, wrapped for display by fmtx.
func Step132(x int) string {
	y := x + 132
	if y%133 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step133 advances x by 133, wrapped for display by fmtx.
func Step133(x int) string {
	y := x + 133
	if y%134 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step134 advances x by 134, wrapped for display by fmtx.
func Step134(x int) string {
	y := x + 134
	if y%135 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step135 advances x by 135, wrapped for display by fmtx.
func Step135(x int) string {
	y := x + 135
	if y%136 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step136 advances x by 136, wrapped for display by fmtx.
func Step136(x int) string {
	y := x + 136
	if y%137 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step137 advances x by 137, wrapped for display by fmtx.
func Step137(x int) string {
	y := x + 137
	if y%138 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step138 advances x by 138, wrapped for display by fmtx.
func Step138(x int) string {
	y := x + 138
	if y%139 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step139 advances x by 139, wrapped for display by fmtx.
func Step139(x int) string {
	y := x + 139
	if y%140 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step140 advances x by 140, wrapped for display by fmtx.
func Step140(x int) string {
	y := x + 140
	if y%141 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step141 advances x by 141, wrapped for display by fmtx.
func Step141(x int) string {
	y := x + 141
	if y%142 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step142 advances x by 142, wrapped for display by fmtx.
func Step142(x int) string {
	y := x + 142
	if y%143 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step143 advances x by 143, wrapped for display by fmtx.
func Step143(x int) string {
	y := x + 143
	if y%144 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step144 advances x by 144, wrapped for display by fmtx.
func Step144(x int) string {
	y := x + 144
	if y%145 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step145 advances x by 145, wrapped for display by fmtx.
func Step145(x int) string {
	y := x + 145
	if y%146 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step146 advances x by 146, wrapped for display by fmtx.
func Step146(x int) string {
	y := x + 146
	if y%147 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step147 advances x by 147, wrapped for display by fmtx.
func Step147(x int) string {
	y := x + 147
	if y%148 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step148 advances x by 148, wrapped for display by fmtx.
func Step148(x int) string {
	y := x + 148
	if y%149 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step149 advances x by 149, wrapped for display by fmtx.
func Step149(x int) string {
	y := x + 149
	if y%150 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step150 advances x by 150, wrapped for display by fmtx.
func Step150(x int) string {
	y := x + 150
	if y%151 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step151 advances x by 151, wrapped for display by fmtx.
func Step151(x int) string {
	y := x + 151
	if y%152 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step152 advances x by 152, wrapped for display by fmtx.
func Step152(x int) string {
	y := x + 152
	if y%153 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step153 advances x by 153, wrapped for display by fmtx.
func Step153(x int) string {
	y := x + 153
	if y%154 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step154 advances x by 154, wrapped for display by fmtx.
func Step154(x int) string {
	y := x + 154
	if y%155 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step155 advances x by 155, wrapped for display by fmtx.
func Step155(x int) string {
	y := x + 155
	if y%156 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step156 advances x by 156, wrapped for display by fmtx.
func Step156(x int) string {
	y := x + 156
	if y%157 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step157 advances x by 157, wrapped for display by fmtx.
func Step157(x int) string {
	y := x + 157
	if y%158 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step158 advances x by 158, wrapped for display by fmtx.
func Step158(x int) string {
	y := x + 158
	if y%159 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step159 advances x by 159, wrapped for display by fmtx.
func Step159(x int) string {
	y := x + 159
	if y%160 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step160 advances x by 160, wrapped for display by fmtx.
func Step160(x int) string {
	y := x + 160
	if y%161 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step161 advances x by 161, wrapped for display by fmtx.
func Step161(x int) string {
	y := x + 161
	if y%162 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step162 advances x by 162, wrapped for display by fmtx.
func Step162(x int) string {
	y := x + 162
	if y%163 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step163 advances x by 163, wrapped for display by fmtx.
func Step163(x int) string {
	y := x + 163
	if y%164 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step164 advances x by 164, wrapped for display by fmtx.
func Step164(x int) string {
	y := x + 164
	if y%165 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step165 advances x by 165, wrapped for display by fmtx.
func Step165(x int) string {
	y := x + 165
	if y%166 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step166 advances x by 166, wrapped for display by fmtx.
func Step166(x int) string {
	y := x + 166
	if y%167 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step167 advances x by 167, wrapped for display by fmtx.
func Step167(x int) string {
	y := x + 167
	if y%168 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step168 advances x by 168, wrapped for display by fmtx.
func Step168(x int) string {
	y := x + 168
	if y%169 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step169 advances x by 169, wrapped for display by fmtx.
func Step169(x int) string {
	y := x + 169
	if y%170 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step170 advances x by 170, wrapped for display by fmtx.
func Step170(x int) string {
	y := x + 170
	if y%171 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step171 advances x by 171, wrapped for display by fmtx.
func Step171(x int) string {
	y := x + 171
	if y%172 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step172 advances x by 172, wrapped for display by fmtx.
func Step172(x int) string {
	y := x + 172
	if y%173 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step173 advances x by 173, wrapped for display by fmtx.
func Step173(x int) string {
	y := x + 173
	if y%174 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step174 advances x by 174, wrapped for display by fmtx.
func Step174(x int) string {
	y := x + 174
	if y%175 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step175 advances x by 175, wrapped for display by fmtx.
func Step175(x int) string {
	y := x + 175
	if y%176 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step176 advances x by 176, wrapped for display by fmtx.
func Step176(x int) string {
	y := x + 176
	if y%177 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step177 advances x by 177, wrapped for display by fmtx.
func Step177(x int) string {
	y := x + 177
	if y%178 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step178 advances x by 178, wrapped for display by fmtx.
func Step178(x int) string {
	y := x + 178
	if y%179 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step179 advances x by 179, wrapped for display by fmtx.
func Step179(x int) string {
	y := x + 179
	if y%180 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step180 advances x by 180, wrapped for display by fmtx.
func Step180(x int) string {
	y := x + 180
	if y%181 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step181 advances x by 181, wrapped for display by fmtx.
func Step181(x int) string {
	y := x + 181
	if y%182 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step182 advances x by 182, wrapped for display by fmtx.
func Step182(x int) string {
	y := x + 182
	if y%183 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step183 advances x by 183, wrapped for display by fmtx.
func Step183(x int) string {
	y := x + 183
	if y%184 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step184 advances x by 184, wrapped for display by fmtx.
func Step184(x int) string {
	y := x + 184
	if y%185 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step185 advances x by 185, wrapped for display by fmtx.
func Step185(x int) string {
	y := x + 185
	if y%186 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step186 advances x by 186, wrapped for display by fmtx.
func Step186(x int) string {
	y := x + 186
	if y%187 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step187 advances x by 187, wrapped for display by fmtx.
func Step187(x int) string {
	y := x + 187
	if y%188 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step188 advances x by 188, wrapped for display by fmtx.
func Step188(x int) string {
	y := x + 188
	if y%189 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step189 advances x by 189, wrapped for display by fmtx.
func Step189(x int) string {
	y := x + 189
	if y%190 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step190 advances x by 190, wrapped for display by fmtx.
func Step190(x int) string {
	y := x + 190
	if y%191 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step191 advances x by 191, wrapped for display by fmtx.
func Step191(x int) string {
	y := x + 191
	if y%192 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step192 advances x by 192, wrapped for display by fmtx.
func Step192(x int) string {
	y := x + 192
	if y%193 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step193 advances x by 193, wrapped for display by fmtx.
func Step193(x int) string {
	y := x + 193
	if y%194 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step194 advances x by 194, wrapped for display by fmtx.
func Step194(x int) string {
	y := x + 194
	if y%195 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step195 advances x by 195, wrapped for display by fmtx.
func Step195(x int) string {
	y := x + 195
	if y%196 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step196 advances x by 196, wrapped for display by fmtx.
func Step196(x int) string {
	y := x + 196
	if y%197 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step197 advances x by 197, wrapped for display by fmtx.
func Step197(x int) string {
	y := x + 197
	if y%198 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step198 advances x by 198, wrapped for display by fmtx.
func Step198(x int) string {
	y := x + 198
	if y%199 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step199 advances x by 199, wrapped for display by fmtx.
func Step199(x int) string {
	y := x + 199
	if y%200 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step200 advances x by 200, wrapped for display by fmtx.
func Step200(x int) string {
	y := x + 200
	if y%201 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step201 advances x by 201, wrapped for display by fmtx.
func Step201(x int) string {
	y := x + 201
	if y%202 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step202 advances x by 202, wrapped for display by fmtx.
func Step202(x int) string {
	y := x + 202
	if y%203 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step203 advances x by 203, wrapped for display by fmtx.
func Step203(x int) string {
	y := x + 203
	if y%204 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step204 advances x by 204, wrapped for display by fmtx.
func Step204(x int) string {
	y := x + 204
	if y%205 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step205 advances x by 205, wrapped for display by fmtx.
func Step205(x int) string {
	y := x + 205
	if y%206 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step206 advances x by 206, wrapped for display by fmtx.
func Step206(x int) string {
	y := x + 206
	if y%207 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step207 advances x by 207, wrapped for display by fmtx.
func Step207(x int) string {
	y := x + 207
	if y%208 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step208 advances x by 208, wrapped for display by fmtx.
func Step208(x int) string {
	y := x + 208
	if y%209 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step209 advances x by 209, wrapped for display by fmtx.
func Step209(x int) string {
	y := x + 209
	if y%210 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step210 advances x by 210, wrapped for display by fmtx.
func Step210(x int) string {
	y := x + 210
	if y%211 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step211 advances x by 211, wrapped for display by fmtx.
func Step211(x int) string {
	y := x + 211
	if y%212 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step212 advances x by 212, wrapped for display by fmtx.
func Step212(x int) string {
	y := x + 212
	if y%213 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step213 advances x by 213, wrapped for display by fmtx.
func Step213(x int) string {
	y := x + 213
	if y%214 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step214 advances x by 214, wrapped for display by fmtx.
func Step214(x int) string {
	y := x + 214
	if y%215 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step215 advances x by 215, wrapped for display by fmtx.
func Step215(x int) string {
	y := x + 215
	if y%216 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step216 advances x by 216, wrapped for display by fmtx.
func Step216(x int) string {
	y := x + 216
	if y%217 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step217 advances x by 217, wrapped for display by fmtx.
func Step217(x int) string {
	y := x + 217
	if y%218 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step218 advances x by 218, wrapped for display by fmtx.
func Step218(x int) string {
	y := x + 218
	if y%219 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step219 advances x by 219, wrapped for display by fmtx.
func Step219(x int) string {
	y := x + 219
	if y%220 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step220 advances x by 220, wrapped for display by fmtx.
func Step220(x int) string {
	y := x + 220
	if y%221 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}

// Step221 advances x by 221, wrapped for display by fmtx.
func Step221(x int) string {
	y := x + 221
	if y%222 == 0 {
		y++
	}
	return fmtx.Wrap(y)
}
