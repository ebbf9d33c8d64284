// The known text bench:ocr renders into scanned pages: English prose of the kind people scan
// (letters, reports, minutes) and Simplified Chinese prose of the same kind, written for this
// bench so that what is measured does not move when the docs change.

export const ENGLISH = `
Dear Ms. Lindqvist, thank you for your letter of 3 October about the repairs to the north wall of
the warehouse. We inspected the building on Tuesday morning with the structural engineer from the
council. The damage is less serious than we first feared. Two of the steel brackets that hold the
cladding panels have rusted through, and water has been running down behind the insulation for
several months. The concrete itself is sound, and the foundations show no sign of movement.

We propose to replace all eleven brackets on that side of the building, not only the two that have
failed, because the others were fitted at the same time and are likely to fail within a few years.
The new brackets will be galvanised and fixed with stainless bolts. While the panels are off, the
wet insulation will be removed and replaced, and a drip edge will be added above the loading door
so that rain no longer collects there.

The work should take about nine working days, weather permitting. The loading bay will have to be
closed for the first three days while the scaffolding is up. After that, deliveries can continue
as normal, although the forklift route along the north wall will be narrower than usual. We will
put up barriers and signs, and one of our staff will be on site at all times to keep the area safe.

Our estimate for the whole job is enclosed. It includes materials, labour, scaffolding and the
disposal of the old insulation. It does not include any work on the roof, which looked in good
condition when we checked it, or on the gutters, which we recommend cleaning before the winter.
If you would like us to do that as well, we can add it to the same visit for a small extra charge.

Minutes of the residents meeting held on 12 November in the community hall. Present were fourteen
residents, the caretaker and two members of the housing committee. The chair opened the meeting at
seven o'clock and thanked everyone for coming out on a cold evening. The minutes of the last meeting
were read and approved without changes.

The caretaker reported that the lift in block B had been repaired twice since September. A new
control board has been ordered, and the engineer expects to fit it before the end of the month.
Until then, residents on the upper floors who have difficulty with the stairs should call the
office, and someone will help them carry shopping or heavy items.

Several residents raised the problem of parking near the east entrance. Visitors often leave their
cars across the path, which makes it hard for prams and wheelchairs to get through. The committee
agreed to ask the council for two bollards and a clear sign. In the meantime, the caretaker will
leave a polite note on any car that blocks the path.

The garden group asked for volunteers to help plant bulbs in the shared beds on the first Saturday
of December. Tools, gloves and hot drinks will be provided. Children are welcome if they come with
an adult. The group also thanked the family in flat twenty for donating a bench, which now stands
beside the pond and has already become a popular place to sit.

Under any other business, a resident asked whether the recycling bins could be emptied more often
during the holidays. The committee will raise this with the waste contractor. The next meeting will
be held on the second Tuesday of January at the same time and place. The chair closed the meeting
at half past eight.
`;

export const CHINESE = `
尊敬的王女士，您好！感谢您十月三日的来信，关于仓库北墙的维修问题，我们已经在星期二上午和市政府的结构工程师一起进行了检查。
损坏情况比我们最初担心的要轻。固定外墙板的两个钢支架已经锈穿，雨水几个月来一直沿着保温层后面流下。混凝土本身完好，地基也没有任何移动的迹象。
我们建议更换这一侧全部十一个支架，而不仅仅是已经损坏的两个，因为其他支架是同时安装的，很可能在几年内也会出现问题。新的支架将经过镀锌处理，并用不锈钢螺栓固定。
在拆下墙板期间，我们会清除受潮的保温材料并重新铺设，同时在装卸门上方加装一条滴水檐，这样雨水就不会再积在那里。
整个工程大约需要九个工作日，具体取决于天气情况。搭建脚手架的头三天，装卸区需要关闭。之后送货可以照常进行，但沿北墙的叉车通道会比平时窄一些。
我们会设置护栏和指示牌，并安排一名工作人员全程在现场，确保该区域的安全。
随信附上整个工程的报价单，其中包括材料、人工、脚手架以及旧保温材料的清运费用。报价不包括屋顶的任何工程，我们检查时屋顶状况良好。
我们也建议在冬天到来之前清理一下排水槽。如果您希望我们一并处理，可以安排在同一次上门时完成，只需另付少量费用。
居民会议纪要：十一月十二日晚上在社区活动中心召开居民会议，出席的有十四位居民、物业管理员和两位住房委员会的成员。
主持人在七点钟宣布会议开始，并感谢大家在寒冷的夜晚前来参加。上次会议的纪要经宣读后获得通过，没有修改。
物业管理员报告说，自九月以来，二号楼的电梯已经修理了两次。新的控制板已经订购，工程师预计在月底之前安装完毕。
在此之前，住在高层、上下楼梯有困难的居民可以打电话到办公室，会有工作人员帮忙搬运购物袋或重物。
有几位居民提出了东门附近停车的问题。访客经常把车横停在人行道上，使得婴儿车和轮椅很难通过。委员会同意向市政府申请安装两根隔离桩和一块醒目的标志。
花园小组希望大家在十二月的第一个星期六来帮忙，在公共花坛里种植球根花卉。现场会提供工具、手套和热饮，欢迎孩子们在大人陪同下参加。
小组还感谢了二十号的住户捐赠的一张长椅。这张长椅现在放在池塘旁边，已经成为大家喜欢坐下来休息聊天的地方。
在其他事项中，一位居民询问节假日期间能否增加回收箱的清运次数。委员会将就此事与垃圾清运公司进行沟通，并在下次会议上通报结果。
另一位居民建议在楼道里安装感应灯，因为晚上回家时楼梯间太暗，老人和孩子容易摔倒。委员会认为这个建议很好，会请物业先报一个价格。
下次会议定于一月份的第二个星期二晚上七点在同一地点举行。主持人在八点半宣布会议结束，并祝大家节日快乐、身体健康。
附注：会后有几位居民留下来讨论了春节联欢活动的安排，初步决定在活动中心举办一次包饺子比赛和书法展览，欢迎各位报名参加。
报名表放在物业办公室门口的信箱旁边，请在一月十五日之前填写并交回。如有任何问题，可以在工作日的上午九点到下午五点之间打电话咨询。
`;
